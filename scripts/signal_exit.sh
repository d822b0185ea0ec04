# Sourced by scripts/common.sh (so scripts/run.sh) and scripts/slurm/minigpu.sbatch: one place
# that runs a launcher and passes an interrupt on the way minigpu expects it.
# Sourced, not run.
#
# minigpu stops at the next repetition or case on SIGINT/SIGTERM, keeps the finished cases
# (a directory named *.interrupted, run.json status "interrupted") and exits 128+signal. How the
# signal reaches the ranks decides whether that can happen:
# - a terminal's Ctrl-C goes to the whole foreground process group. Sharing it, mpirun would get
#   the signal twice (from the terminal and from this script) and take the second as "abort
#   now", killing the ranks before they write. So the launcher runs in a process group of its
#   own and this script passes the signal on once.
# - signalled itself, Open MPI's mpirun sends its ranks SIGTERM, kills them 1 s later and
#   returns 1 whatever they returned. So on one node the signal goes to mpirun's children, the
#   ranks, which stop, write and exit 128+N; mpirun then returns their status. MPICH's mpiexec
#   (Hydra; MINIGPU_LAUNCHER_FLAVOUR=mpich) passes SIGINT/SIGTERM on to its ranks and returns
#   their status, so it gets the signal itself. srun (MINIGPU_LAUNCHER_FLAVOUR=other) has no
#   ranks for children (its tasks are slurmstepd's), and signalled itself it kills them: inside
#   a job, scancel --signal gives the job's tasks the signal as Slurm's time limit does.
# A second signal goes to the launcher itself: the user means it.

# exit_on_interrupt: from here until run_forwarding_signals takes over (and again after it), a
# Ctrl-C (SIGINT) ends the script with 130 as soon as the command in hand returns. Bash alone
# carries on after a command that caught the signal and exited 0, and would then launch the run
# the user had just stopped (tests/e2e/check_signal_before_launch.py). SIGTERM keeps bash's
# default, which ends the script at once (EXIT traps run): a trap would wait for the command in
# hand, and a scheduler's SIGKILL may follow before it returns.
exit_on_interrupt() {
  trap 'echo "[minigpu] interrupted (SIGINT)" >&2; exit 130' INT
}

# launcher_flavour LAUNCHER: openmpi, mpich (Hydra's mpiexec: MPICH's, Intel MPI's) or other
# (srun, a site's own), from the launcher's --version; MINIGPU_LAUNCHER_FLAVOUR holds it for run_forwarding_signals.
launcher_flavour() {
  case "$("$1" --version 2>&1 | head -n 3)" in
    *OpenRTE* | *"Open MPI"* | *prterun*) echo openmpi ;;
    *HYDRA*) echo mpich ;;
    *) echo other ;;
  esac
}

# run_forwarding_signals COMMAND...: runs COMMAND (an executable, not a shell function: the
# signal must reach the launcher itself) with stdin from /dev/null (in a background process
# group, reading the terminal would stop it), forwards SIGTERM/SIGINT as above and returns its
# exit status, or 128+signal when a signal stopped it (2, bad input, is kept). Safe under set -e.
run_forwarding_signals() {
  local caught=0 pid="" rc=0 passed=0
  _minigpu_pass_on() {  # SIGNAL NUMBER
    caught="$2"
    # Before the launcher exists there is nothing to pass on: it is not started (below).
    [ -n "$pid" ] || return 0
    passed=$((passed + 1))
    local ranks="" flavour="${MINIGPU_LAUNCHER_FLAVOUR:-openmpi}"
    # srun signalled itself ends the step at once ("forcing job termination": its tasks are
    # killed before they write), so inside a job the tasks get the signal from Slurm as its
    # time limit gives it (scancel signals every step of the job, not this script).
    if [ "$passed" -eq 1 ] && [ "$flavour" = other ] && [ -n "${SLURM_JOB_ID:-}" ] &&
      scancel --signal="$1" "$SLURM_JOB_ID" 2>/dev/null; then
      return
    fi
    # Only Open MPI's mpirun has the ranks as children. MPICH's mpiexec (Hydra) forwards the
    # signal itself and returns the ranks' status (its children are proxies).
    # `|| true`: before mpirun has started them pgrep finds none and fails, which under set -e and
    # pipefail ended this trap (exit 1) and left the launcher running unsignalled behind the script.
    if [ "$passed" -eq 1 ] && [ "$flavour" = openmpi ]; then
      ranks="$(pgrep -P "$pid" 2>/dev/null | tr '\n' ' ' || true)"
    fi
    if [ -n "$ranks" ]; then
      # shellcheck disable=SC2086
      kill -s "$1" $ranks 2>/dev/null || true
    else
      kill -s "$1" "$pid" 2>/dev/null || true  # under set -e a launcher already gone must not end the trap
    fi
  }
  local saved_traps
  saved_traps="$(trap -p INT TERM)"
  trap '_minigpu_pass_on TERM 15' TERM
  trap '_minigpu_pass_on INT 2' INT
  local monitor=0
  case "$-" in *m*) monitor=1 ;; esac
  if [ "$caught" -ne 0 ]; then  # a signal pending from before the traps: the run is not started
    trap - TERM INT
    eval "$saved_traps"
    return $((128 + caught))
  fi
  set -m
  "$@" </dev/null &
  pid=$!
  [ "$monitor" -eq 1 ] || set +m
  # A signal taken between the traps and `pid=$!` found no launcher: it is passed on now.
  if [ "$caught" -ne 0 ] && [ "$passed" -eq 0 ]; then
    if [ "$caught" -eq 2 ]; then _minigpu_pass_on INT 2; else _minigpu_pass_on TERM 15; fi
  fi
  wait "$pid" || rc=$?
  # A trapped signal interrupts `wait` (status > 128) before the launcher has finished.
  while [ "$caught" -ne 0 ] && [ "$rc" -gt 128 ] && kill -0 "$pid" 2>/dev/null; do
    rc=0
    wait "$pid" || rc=$?
  done
  trap - TERM INT
  eval "$saved_traps"
  if [ "$caught" -ne 0 ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
    rc=$((128 + caught))
  fi
  # MPICH 4.0's Hydra, having passed a signal on, reports ranks that returned 128+N as 0 (in
  # 12 of 30 Ctrl-Cs it returned 0 itself; tests/e2e/check_signal.sh): its 0 is not a finished run.
  if [ "$caught" -ne 0 ] && [ "$rc" -eq 0 ] && [ "${MINIGPU_LAUNCHER_FLAVOUR:-openmpi}" = mpich ]; then
    rc=$((128 + caught))
  fi
  return "$rc"
}
