#!/usr/bin/env bash
# One rank failing must end the whole job, never hang it: rank 1 alone gets an invalid
# MINIGPU_EMULATE_GPUS (an MPMD launch) while rank 0's is fine. The environment is a usage
# error, so expect exit 2 on the whole job well inside the time limit (124 would be a hang)
# and an error naming rank 1. Failures later in a run: check_faults.sh.
# Usage: check_rank_failure.sh MPIEXEC MINIGPU INPUT
set -u
export OMPI_MCA_rmaps_base_oversubscribe=1  # Open MPI's --oversubscribe; MPICH's mpiexec refuses that flag and needs none
mpiexec="$1" minigpu="$2" input="$3"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
start=$SECONDS
timeout 120 "$mpiexec" -np 1 env MINIGPU_EMULATE_GPUS=2 "$minigpu" run "$input" --output-dir "$out/r" \
  : -np 1 env MINIGPU_EMULATE_GPUS=bogus "$minigpu" run "$input" --output-dir "$out/r" >"$out/log" 2>&1
rc=$?
cat "$out/log"
if [ "$rc" -ne 2 ]; then
  echo "FAIL: exit code $rc, expected 2 (0 = the failure went unnoticed, 124 = the job hung)"
  exit 1
fi
if ! grep -q "minigpu: rank 1: error: MINIGPU_EMULATE_GPUS='bogus' must be an integer" "$out/log"; then
  echo "FAIL: no error line naming rank 1"
  exit 1
fi
echo "job ended with exit code $rc after $((SECONDS - start)) s, naming rank 1"
