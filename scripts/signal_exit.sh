# Sourced by scripts/common.sh (so scripts/run.sh) and scripts/slurm/minigpu.sbatch: one place
# that runs a launcher and reports a signal the way minigpu does.
#
# minigpu stops at the next case or repetition on SIGTERM/SIGINT, keeps the finished cases
# (run.json status "interrupted") and exits 128+signal; srun passes that on, but mpirun reports
# a forwarded signal as 1 ("a result failed verification"), so the caller maps it back.

# run_forwarding_signals COMMAND...: runs COMMAND (an executable, not a shell function: the
# signal must reach the launcher itself), forwards SIGTERM/SIGINT to it and returns its exit
# status, or 128+signal when a signal stopped it (2, bad input, is kept). Safe under set -e.
run_forwarding_signals() {
  local caught=0 pid rc=0
  trap 'caught=15; kill -TERM "$pid" 2>/dev/null' TERM
  trap 'caught=2; kill -INT "$pid" 2>/dev/null' INT
  "$@" &
  pid=$!
  wait "$pid" || rc=$?
  # A trapped signal interrupts `wait` (status > 128) before the launcher has finished.
  while [ "$caught" -ne 0 ] && [ "$rc" -gt 128 ] && kill -0 "$pid" 2>/dev/null; do
    rc=0
    wait "$pid" || rc=$?
  done
  trap - TERM INT
  if [ "$caught" -ne 0 ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
    rc=$((128 + caught))
  fi
  return "$rc"
}
