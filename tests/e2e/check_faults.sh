#!/usr/bin/env bash
# One failing rank ends the whole job promptly, never a hang: at 2 and 4 ranks, a fault is
# injected (MINIGPU_INJECT_FAULT=RANK:POINT) into the last rank's setup, run and verify of the
# first case, and into rank 0's write of the run directory. Each job must end non-zero within
# the time limit with an error naming the rank. Then ranks that expand different case lists
# (rank 1 alone sees an emulated GPU) must be refused with exit 2 before the first case.
# Usage: check_faults.sh MPIEXEC MINIGPU INPUT
set -u
export OMPI_MCA_rmaps_base_oversubscribe=1  # Open MPI's --oversubscribe; MPICH's mpiexec refuses that flag and needs none
mpiexec="$1" minigpu="$2" input="$3"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
for ranks in 2 4; do
  for point in setup run verify write; do
    target=$((ranks - 1))
    [ "$point" = write ] && target=0
    start=$SECONDS
    timeout 120 "$mpiexec" -np "$ranks" env MINIGPU_INJECT_FAULT="$target:$point" \
      "$minigpu" run "$input" --output-dir "$out/r" >"$out/log" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
      echo "FAIL np$ranks $point: exit $rc (0: the fault went unnoticed; 124: the job hung)"; cat "$out/log"; status=1
    elif ! grep -q "rank $target: error: injected fault" "$out/log"; then
      echo "FAIL np$ranks $point: no error line naming rank $target"; cat "$out/log"; status=1
    else
      echo "np$ranks fault at $point on rank $target: exit $rc after $((SECONDS - start)) s"
    fi
  done
done
timeout 120 "$mpiexec" -np 1 "$minigpu" run "$input" --output-dir "$out/m" \
  : -np 1 env MINIGPU_EMULATE_GPUS=1 "$minigpu" run "$input" --output-dir "$out/m" >"$out/log" 2>&1
rc=$?
if [ "$rc" -ne 2 ] || ! grep -q "rank 1 expanded a different list of cases" "$out/log" || [ -e "$out/m" ]; then
  echo "FAIL mismatched case lists: exit $rc (expected 2, nothing written)"; cat "$out/log"; status=1
else
  echo "mismatched case lists refused: $(grep -m1 'different list' "$out/log")"
fi
exit $status
