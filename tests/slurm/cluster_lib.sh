#!/usr/bin/env bash
# Shared by the private-Slurm-cluster tests (test_slurm_cluster.sh, test_slurm_two_nodes.sh):
# a temporary directory holding everything, daemons started as tagged children and stopped by
# PID, a detached watchdog, munge, free ports, and job polling. Source it, then call
# cluster_begin. Run directly only by the watchdog: cluster_lib.sh --watchdog PID DIR | --reap DIR.
#
# Every process started here carries MINIGPU_SLURM_TEST_TAG=<directory> in its environment,
# which is how the reaper finds job steps that outlived the daemons; no other process is touched.
# Network namespaces a test creates are listed in <directory>/netns and deleted by the reaper.
export PATH="/usr/sbin:/sbin:/usr/bin:/bin:$PATH"
cluster_lib="$(realpath "${BASH_SOURCE[0]}")"

say() { echo "[slurm-test] $*"; }
skip() {
  say "SKIP: $*"
  exit 77
}

# reap DIR: stops what was started for DIR (recorded daemon PIDs, then anything carrying the tag),
# deletes its network namespaces, then removes DIR. Used by the EXIT trap and by the watchdog.
# remove_shm DIR: the files a test's jobs leave in /dev/shm, DIR/shm naming them (one glob a line).
# Open MPI names its segments by host and job id, and every test cluster's first job has the same
# id: a later run's would open a killed job's segments.
remove_shm() {
  local glob
  [ -f "$1/shm" ] || return 0
  while read -r glob; do
    # shellcheck disable=SC2086  # the glob is meant to expand
    rm -f /dev/shm/$glob
  done < "$1/shm"
}

reap() {
  local dir="$1" pid ns
  [ -d "$dir" ] || return 0
  if [ -f "$dir/pids" ]; then
    while read -r pid; do
      kill -TERM "$pid" 2>/dev/null
    done < "$dir/pids"
    for _ in $(seq 50); do
      local alive=0
      while read -r pid; do
        kill -0 "$pid" 2>/dev/null && alive=1
      done < "$dir/pids"
      [ "$alive" -eq 0 ] && break
      sleep 0.2
    done
    while read -r pid; do
      kill -KILL "$pid" 2>/dev/null
    done < "$dir/pids"
  fi
  # Job steps (slurmstepd, ranks) detach from slurmd: find them by the tag in their environment.
  python3 - "$dir" <<'EOF'
import os, signal, sys, time
tag = ("MINIGPU_SLURM_TEST_TAG=" + sys.argv[1]).encode()
def tagged():
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if tag in f.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            pass
    return [p for p in found if p != os.getpid()]
for sig in (signal.SIGTERM, signal.SIGKILL):
    for pid in tagged():
        try:
            os.kill(pid, sig)
        except OSError:
            pass
    for _ in range(25):
        if not tagged():
            break
        time.sleep(0.2)
left = tagged()
if left:
    print(f"[slurm-test] could not stop tagged processes {left}")
EOF
  remove_shm "$dir"
  if [ -f "$dir/netns" ]; then
    while read -r ns; do
      ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
      ip netns del "$ns" 2>/dev/null
    done < "$dir/netns"
  fi
  rm -rf "$dir"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    --reap)
      reap "$2"
      exit 0
      ;;
    --watchdog)
      # Outlives a killed test (ctest's timeout kills the process tree; this was detached from it).
      echo $$ > "$3/watchdog.pid"
      while kill -0 "$2" 2>/dev/null && [ -d "$3" ]; do sleep 1; done
      reap "$3"
      exit 0
      ;;
  esac
  echo "usage: $0 --reap DIR | --watchdog PID DIR" >&2
  exit 2
fi

# cluster_begin: skips (77) unless root with slurm-wlm, munge and the PMIx plugin; then makes the
# temporary directory $tmp with its trap and watchdog, and sets $tag.
cluster_begin() {
  [ "$(uname -s)" = Linux ] || skip "needs Linux"
  [ "$(id -u)" -eq 0 ] || skip "needs root to run slurmctld/slurmd/munged (running as $(id -un))"
  local missing=() tool f
  for tool in munged mungekey munge unmunge slurmctld slurmd sbatch srun squeue scontrol sinfo scancel python3 setsid realpath "$@"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  [ ${#missing[@]} -eq 0 ] || skip "missing ${missing[*]}: install slurm-wlm munge (scripts/test.sh installs MINIGPU_PACKAGES)"
  pmix_plugin=""
  for f in /usr/lib/*/slurm-wlm/mpi_pmix.so /usr/lib*/slurm/mpi_pmix.so; do
    [ -f "$f" ] && pmix_plugin="$f"
  done
  [ -n "$pmix_plugin" ] || skip "Slurm has no mpi/pmix plugin"

  # A clean environment: nothing from an enclosing Slurm job or from the caller's miniGPU settings,
  # except the ceilings cache ctest points into the build tree: without it the jobs cached a peak
  # measured under the suite's load in the user's home, where a later `scripts/run.sh` read
  # GEMMs at 107-116 % of it (2026-12-02).
  local var
  while read -r var; do [ "$var" = MINIGPU_CEILINGS_DIR ] || unset "$var"; done < <(env |
    sed -n 's/^\(\(SLURM\|SBATCH\|SRUN\|SALLOC\|MINIGPU\)_[A-Za-z0-9_]*\)=.*/\1/p')

  tmp="$(mktemp -d /tmp/minigpu-slurm.XXXXXX)"
  chmod 755 "$tmp"  # munged wants o+x on its socket's directories
  trap cluster_on_exit EXIT
  trap 'exit 1' INT TERM HUP
  setsid -f bash "$cluster_lib" --watchdog $$ "$tmp" </dev/null >/dev/null 2>&1
  tag="MINIGPU_SLURM_TEST_TAG=$tmp"
  mkdir -p "$tmp"/{munge,etc,state,spool,log,run,tmpfs,submit}
  chmod 755 "$tmp"/*
  touch "$tmp/pids"
}

# On exit: reap, then stop the watchdog (it would notice the directory gone within a second).
cluster_on_exit() {
  local watchdog=""
  [ -f "$tmp/watchdog.pid" ] && watchdog="$(cat "$tmp/watchdog.pid")"
  reap "$tmp"
  [ -n "$watchdog" ] && kill "$watchdog" 2>/dev/null
  return 0
}

# Client commands (scontrol, sbatch, ...) run through $ctl: empty, or entering the namespace
# where slurmctld listens.
ctl=()

fail() {
  say "FAIL: $*"
  if [ -n "${SLURM_CONF:-}" ]; then
    echo "----- jobs"
    timeout 10 "${ctl[@]}" scontrol -o show job 2>&1 | cut -c1-400
  fi
  local f
  # The jobs' own output first, newest (the one that failed) first: CI keeps the head and the
  # tail of a failed test's output, and the daemons' logs would push it out of both.
  for f in $(ls -t "$tmp"/submit/*.out 2>/dev/null) "$tmp"/log/*.log "$tmp"/munge/munged.log; do
    [ -f "$f" ] || continue
    echo "----- $f (last 40 lines)"
    tail -n 40 "$f"
  done
  for f in "$tmp"/log/*.stdout; do  # a daemon that could not start says why only here
    [ -f "$f" ] || continue
    echo "----- $f (last 5 lines)"
    tail -n 5 "$f"
  done
  exit 1
}

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.5 s until it succeeds.
wait_for() {
  local limit="$1" what="$2" deadline
  shift 2
  deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "timed out after ${limit}s waiting for $what"
    sleep 0.5
  done
}

# start NAME COMMAND...: runs a daemon in the foreground as our child, tagged; its PID is
# recorded for the reaper and left in $started_pid.
start() {
  local name="$1"
  shift
  env "$tag" "$@" > "$tmp/log/$name.stdout" 2>&1 &
  started_pid=$!
  echo "$started_pid" >> "$tmp/pids"
}
alive() { kill -0 "$1" 2>/dev/null; }

# free_ports N: N distinct free TCP ports (checked on every address, as the daemons bind them).
free_ports() {
  python3 - "$1" <<'EOF'
import random, socket, sys
ports = []
while len(ports) < int(sys.argv[1]):
    p = random.randint(20000, 32000)
    if p in ports:
        continue
    try:
        with socket.socket() as s:
            s.bind(("0.0.0.0", p))
        ports.append(p)
    except OSError:
        pass
print(*ports)
EOF
}

# start_munge: a private key, socket ($sock) and daemon.
start_munge() {
  sock="$tmp/munge/munged.sock"
  mungekey -c -k "$tmp/munge/munge.key" >/dev/null 2>&1 || fail "mungekey could not create a key"
  chmod 600 "$tmp/munge/munge.key"
  start munged munged -F --socket="$sock" --key-file="$tmp/munge/munge.key" \
    --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed"
  munged_pid=$started_pid
  wait_for 15 "munged" munge_works
}
munge_works() { alive "$munged_pid" && munge -n -S "$sock" | unmunge -S "$sock"; }

# slurm_conf_common: the slurm.conf lines every test cluster shares (no nodes, ports or TmpFS).
slurm_conf_common() {
  touch "$tmp/etc/plugstack.conf"
  cat <<EOF
ClusterName=$cluster
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/slurmd-%n
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd-%n.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$tmp/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
ReturnToService=2
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$tmp/log/jobcomp.txt
MinJobAge=600
KillWait=5
InactiveLimit=0
EOF
}

# job_field ID FIELD: a field of scontrol show job (JobState, ExitCode, ...).
job_field() { "${ctl[@]}" scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
# job_finished ID STARTED: waits up to 120 s for job ID and says how it ended (STARTED: $SECONDS
# when it was submitted).
job_finished() {
  wait_for 120 "job $1 to finish" job_done "$1"
  say "job $1: JobState=$(job_field "$1" JobState) ExitCode=$(job_field "$1" ExitCode) NodeList=$(job_field "$1" NodeList) after $((SECONDS - $2))s"
}
# job_succeeded ID: fails the test unless finished job ID COMPLETED with exit code 0:0.
job_succeeded() {
  local state exit_code
  state="$(job_field "$1" JobState)"
  exit_code="$(job_field "$1" ExitCode)"
  # The job's output is not echoed on success: fail() prints every job's tail, and a quiet pass
  # keeps a failure's reason near the top of what CI shows of the test.
  [ "$state" = COMPLETED ] || fail "job $1 ended $state, expected COMPLETED"
  [ "$exit_code" = "0:0" ] || fail "job $1 exit code $exit_code, expected 0:0"
}
# job_completed ID STARTED: both, for a job that must succeed.
job_completed() {
  job_finished "$1" "$2"
  job_succeeded "$1"
}
job_done() {
  case "$(job_field "$1" JobState)" in
    PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|"") return 1 ;;
    *) return 0 ;;
  esac
}
