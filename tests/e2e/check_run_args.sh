#!/usr/bin/env bash
# scripts/run.sh takes its input, rank count and minigpu options in any order: its parser
# (parse_run_args in scripts/common.sh) must pick each out wherever it stands. Once it handed
# `--only` to mpirun as the rank count.
# Usage: check_run_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
set +e
status=0
expect() {  # expect INPUT RANKS "ARGS..." -- run.sh arguments
  local input="$1" ranks="$2" args="$3"
  shift 4
  parse_run_args "$@"
  if [ "$RUN_INPUT" != "$input" ] || [ "$RUN_RANKS" != "$ranks" ] || [ "${RUN_ARGS[*]}" != "$args" ]; then
    echo "FAIL: run.sh $*: input '$RUN_INPUT' ranks '$RUN_RANKS' args '${RUN_ARGS[*]}'," \
      "expected '$input' '$ranks' '$args'"
    status=1
  fi
}
quick="$MINIGPU_ROOT/inputs/quickstart.yaml"
expect "$quick" 2 "" --
expect a.yaml 2 "--only matmul" -- a.yaml --only matmul
expect a.yaml 4 "--only matmul" -- --only matmul -n 4 a.yaml
expect a.yaml 3 "" -- a.yaml 3
expect a.yml 8 "--dry-run --set run.repetitions=2" -- --dry-run -n8 a.yml --set run.repetitions=2
expect "$quick" 2 "--set experiments.matmul.sizes=[64,128] --repetitions 5" -- \
  --set 'experiments.matmul.sizes=[64,128]' --repetitions 5
expect b.yaml 6 "--output-dir out.yaml" -- --ranks=6 --output-dir out.yaml b.yaml
# A bad rank count is refused (exit 2), not handed to mpirun.
( parse_run_args -n lots a.yaml ) 2>/dev/null
[ "$?" -eq 2 ] || { echo "FAIL: -n lots was accepted"; status=1; }
[ "$status" -eq 0 ] && echo "scripts/run.sh parses its arguments in any order"
exit $status
