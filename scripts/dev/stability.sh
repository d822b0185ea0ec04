#!/usr/bin/env bash
# Runs one input several times in a row and reports how much each finding moved between runs
# and whether its reliability flag stayed the same: the check that a headline figure is stable
# enough to quote. Usage: scripts/dev/stability.sh [RUNS] [INPUT] [-n RANKS]
# (defaults: 5 runs of inputs/quickstart.yaml on 2 ranks). Exits 1 when a finding was flagged
# unreliable in some runs and not in others.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
runs=5
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  runs="$1"
  shift
fi
parse_run_args "$@"
install_packages "${MINIGPU_PACKAGES[@]}"
configure_and_build
out="$(mktemp -d)"
for i in $(seq 1 "$runs"); do
  start=$(date +%s.%N)
  mpirun_n "$RUN_RANKS" "$MINIGPU_BUILD/src/minigpu" run "$RUN_INPUT" --output-dir "$out/run$i" "${RUN_ARGS[@]}" \
    >"$out/run$i.log" 2>&1 || { cat "$out/run$i.log"; log "run $i failed"; exit 1; }
  log "run $i of $runs: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
done
python3 "$MINIGPU_ROOT/scripts/dev/stability_report.py" "$out"/run*/*/run.json
status=$?
log "run records kept in $out"
exit $status
