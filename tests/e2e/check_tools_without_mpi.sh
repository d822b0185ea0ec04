#!/usr/bin/env bash
# The commands that need no ranks (compare, report, model, list, --help, --version) run alone:
# no MPI_Init, so they work on a login node with no launcher and start at once. Shown with an
# Open MPI that cannot initialise (OPAL_PREFIX pointing nowhere: MPI_Init aborts): each tool must
# still succeed, and `devices`, which does need MPI, must fail -- so the check can fail.
# Usage: check_tools_without_mpi.sh MINIGPU REPO_ROOT     (exit 77: the binary is not Open MPI's)
set -u
minigpu="$1" root="$2"
"$minigpu" --version 2>/dev/null | grep -q '^mpi: Open MPI' ||
  { echo "SKIP: $("$minigpu" --version 2>/dev/null | grep '^mpi:'): the unusable-MPI trick is Open MPI's"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
# A real run to read back, made with a working MPI.
printf 'run: {repetitions: 1, warmups: 0}\nexperiments: [{name: devices}]\n' >"$work/in.yaml"
"$minigpu" run "$work/in.yaml" --output-dir "$work/runs" >"$work/run.log" 2>&1 ||
  { echo "FAIL: the run to read back failed"; cat "$work/run.log"; exit 1; }
run_dir="$(ls -d "$work"/runs/*/ | head -n 1)"
alone() {  # alone NAME ARGS...: minigpu ARGS must succeed with an MPI that cannot start
  local name="$1"
  shift
  if OPAL_PREFIX=/nonexistent timeout 60 "$minigpu" "$@" >"$work/$name.log" 2>&1; then
    echo "ok: minigpu $* without MPI"
  else
    echo "FAIL: minigpu $* (exit $?) needed MPI:"
    tail -5 "$work/$name.log"
    status=1
  fi
}
alone version --version
alone help --help
alone list list
alone list_json list --json
alone compare compare "$run_dir" "$run_dir"
alone model model --profile "$root/inputs/hardware/h100_sxm.yaml" --max-p 16
alone report report "$run_dir"
# Kokkos's options take the usual path (Kokkos strips them): still accepted.
"$minigpu" --kokkos-num-threads=1 list >"$work/kokkos.log" 2>&1 ||
  { echo "FAIL: minigpu --kokkos-num-threads=1 list refused its Kokkos option:"; cat "$work/kokkos.log"; status=1; }
# The control: a command that needs ranks fails there, so the tools above did not start MPI.
if OPAL_PREFIX=/nonexistent timeout 60 "$minigpu" devices >"$work/devices.log" 2>&1; then
  echo "FAIL: minigpu devices ran with an MPI that cannot start: the check proves nothing"
  status=1
fi
exit "$status"
