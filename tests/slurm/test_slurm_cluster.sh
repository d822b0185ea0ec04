#!/usr/bin/env bash
# Stands up a private single-node Slurm cluster on localhost (Debian's slurm-wlm and munge), submits
# scripts/slurm/minigpu.sbatch with 2 tasks (srun --mpi=pmix) on inputs/quickstart.yaml, and checks
# that the job COMPLETED with exit code 0:0 and that every result row verified. Then runs
# scripts/slurm/sweep.sh on 1 and 2 ranks (mpirun launcher) and checks its merged table.
#
#   test_slurm_cluster.sh MINIGPU_BINARY REPO_ROOT
#
# Exit codes: 0 pass, 1 fail, 77 skipped (not root, or slurm-wlm/munge not installed).
# Everything (munge key and socket, slurm.conf, state, spool, logs, TmpFS, results) lives in one
# fresh temporary directory; the daemons run in the foreground as children of this script and
# are stopped by PID on exit, and a detached watchdog reaps them if this script is killed.
# Every process started here carries MINIGPU_SLURM_TEST_TAG=<that directory> in its environment,
# which is how the reaper finds job steps that outlived the daemons; no other process is touched.
set -uo pipefail
export PATH="/usr/sbin:/sbin:/usr/bin:/bin:$PATH"

say() { echo "[slurm-test] $*"; }
skip() {
  say "SKIP: $*"
  exit 77
}

# reap DIR: stops what was started for DIR (recorded daemon PIDs, then anything carrying the tag),
# then removes DIR. Used by the EXIT trap and by the watchdog.
reap() {
  local dir="$1" pid
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
  rm -rf "$dir"
}

if [ "${1:-}" = "--reap" ]; then
  reap "$2"
  exit 0
fi
if [ "${1:-}" = "--watchdog" ]; then
  # Outlives a killed test (ctest's timeout kills the process tree; this was detached from it).
  echo $$ > "$3/watchdog.pid"
  while kill -0 "$2" 2>/dev/null && [ -d "$3" ]; do sleep 1; done
  reap "$3"
  exit 0
fi

[ $# -eq 2 ] || { echo "usage: $0 MINIGPU_BINARY REPO_ROOT" >&2; exit 2; }
bin="$(realpath "$1")"
root="$(realpath "$2")"
started=$SECONDS

[ "$(uname -s)" = Linux ] || skip "needs Linux"
[ "$(id -u)" -eq 0 ] || skip "needs root to run slurmctld/slurmd/munged (running as $(id -un))"
missing=()
for tool in munged mungekey munge unmunge slurmctld slurmd sbatch srun squeue scontrol sinfo scancel python3 setsid realpath; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] || skip "missing ${missing[*]}: install slurm-wlm munge (scripts/test.sh installs MINIGPU_PACKAGES)"
pmix_plugin=""
for f in /usr/lib/*/slurm-wlm/mpi_pmix.so /usr/lib*/slurm/mpi_pmix.so; do
  [ -f "$f" ] && pmix_plugin="$f"
done
[ -n "$pmix_plugin" ] || skip "Slurm has no mpi/pmix plugin"
[ -x "$bin" ] || { say "FAIL: no binary $bin"; exit 1; }

# A clean environment: nothing from an enclosing Slurm job or from the caller's miniGPU settings.
while read -r var; do unset "$var"; done < <(env | sed -n 's/^\(\(SLURM\|SBATCH\|SRUN\|SALLOC\|MINIGPU\)_[A-Za-z0-9_]*\)=.*/\1/p')

tmp="$(mktemp -d /tmp/minigpu-slurm.XXXXXX)"
chmod 755 "$tmp"  # munged wants o+x on its socket's directories
# On exit: reap, then stop the watchdog (it would notice the directory gone within a second).
on_exit() {
  local watchdog=""
  [ -f "$tmp/watchdog.pid" ] && watchdog="$(cat "$tmp/watchdog.pid")"
  reap "$tmp"
  [ -n "$watchdog" ] && kill "$watchdog" 2>/dev/null
  return 0
}
trap on_exit EXIT
trap 'exit 1' INT TERM HUP
setsid -f bash "${BASH_SOURCE[0]}" --watchdog $$ "$tmp" </dev/null >/dev/null 2>&1
tag="MINIGPU_SLURM_TEST_TAG=$tmp"
mkdir -p "$tmp"/{munge,etc,state,spool,log,run,tmpfs,submit}
chmod 755 "$tmp"/*
touch "$tmp/pids"

fail() {
  say "FAIL: $*"
  if [ -n "${SLURM_CONF:-}" ]; then
    echo "----- jobs"
    timeout 10 scontrol -o show job 2>&1 | cut -c1-400
  fi
  for f in "$tmp"/log/*.log "$tmp"/munge/munged.log "$tmp"/submit/*.out; do
    [ -f "$f" ] || continue
    echo "----- $f (last 40 lines)"
    tail -n 40 "$f"
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

# Two free TCP ports (checked on every address, as slurmctld and slurmd bind them).
read -r ctld_port slurmd_port < <(python3 - <<'EOF'
import random, socket
ports = []
while len(ports) < 2:
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
)

# --- munge: private key, socket and daemon -------------------------------------------------------
sock="$tmp/munge/munged.sock"
mungekey -c -k "$tmp/munge/munge.key" >/dev/null 2>&1 || fail "mungekey could not create a key"
chmod 600 "$tmp/munge/munge.key"
start munged munged -F --socket="$sock" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed"
munged_pid=$started_pid
munge_works() { alive "$munged_pid" && munge -n -S "$sock" | unmunge -S "$sock"; }
wait_for 15 "munged" munge_works

# --- slurm.conf ------------------------------------------------------------------------------------
hardware="$(slurmd -C 2>/dev/null | head -n 1)"
cpus="$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<< "$hardware")"
[ -n "$cpus" ] || fail "slurmd -C gave no CPU count: $hardware"
topology="$(tr ' ' '\n' <<< "$hardware" | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')"
cluster="mg$(tr -dc 'a-z0-9' < /dev/urandom | head -c 8)"
touch "$tmp/etc/plugstack.conf"
cat > "$tmp/etc/slurm.conf" <<EOF
ClusterName=$cluster
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
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
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
TmpFS=$tmp/tmpfs
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
SlurmdTimeout=300
NodeName=localhost NodeAddr=127.0.0.1 $topology State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/etc/slurm.conf"

# --- daemons ---------------------------------------------------------------------------------------
start slurmctld slurmctld -D -i -f "$SLURM_CONF"
slurmctld_pid=$started_pid
ctld_up() { alive "$slurmctld_pid" && scontrol ping | grep -q UP; }
wait_for 20 "slurmctld on port $ctld_port" ctld_up
start slurmd slurmd -D -N localhost -f "$SLURM_CONF"
slurmd_pid=$started_pid
node_idle() { alive "$slurmd_pid" && [ "$(sinfo -h -n localhost -o %t)" = idle ]; }
wait_for 20 "node localhost to become idle" node_idle
say "cluster $cluster up in $((SECONDS - started))s (ports $ctld_port/$slurmd_port, $cpus CPU(s), $tmp)"

overcommit=()
[ "$cpus" -ge 2 ] || overcommit=(--overcommit)

# job_field ID FIELD: a field of scontrol show job (JobState, ExitCode, ...).
job_field() { scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
job_done() {
  case "$(job_field "$1" JobState)" in
    PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|"") return 1 ;;
    *) return 0 ;;
  esac
}

# --- the job: minigpu.sbatch, 2 tasks, srun --mpi=pmix, default input (quickstart) --------------------
cd "$tmp/submit" || fail "no $tmp/submit"
job_started=$SECONDS
job="$(env "$tag" MINIGPU_BIN="$bin" sbatch --parsable --ntasks=2 "${overcommit[@]}" \
  --output="$tmp/submit/job-%j.out" "$root/scripts/slurm/minigpu.sbatch")" || fail "sbatch refused the job"
job="${job%%;*}"
say "submitted job $job"
wait_for 120 "job $job to finish" job_done "$job"
state="$(job_field "$job" JobState)"
exit_code="$(job_field "$job" ExitCode)"
say "job $job: JobState=$state ExitCode=$exit_code after $((SECONDS - job_started))s"
cat "$tmp/submit/job-$job.out"
[ "$state" = COMPLETED ] || fail "job $job ended $state, expected COMPLETED"
[ "$exit_code" = "0:0" ] || fail "job $job exit code $exit_code, expected 0:0"
grep -q "JobId=$job .*JobState=COMPLETED" "$tmp/log/jobcomp.txt" || fail "job completion record lacks job $job"
grep -q "srun --mpi=pmix --ntasks=2" "$tmp/submit/job-$job.out" || fail "the job did not launch with srun --mpi=pmix"

# One quickstart run of one 2-rank MPI job, every row verified: the same check as the mpirun e2e test.
[ "$(ls "$tmp/submit/results")" = "$(ls "$tmp/submit/results" | grep '^quickstart-')" ] ||
  fail "the job wrote something other than a quickstart run"
python3 "$root/tests/e2e/check_run.py" --check-dir "$tmp/submit/results" --ranks 2 ||
  fail "the job's results do not check out"

# --- the sweep: 1 and 2 ranks, mpirun launcher, small input ------------------------------------------
sweep_started=$SECONDS
env "$tag" MINIGPU_BIN="$bin" MINIGPU_LAUNCHER=mpirun MINIGPU_SWEEP_POLL=1 MINIGPU_SWEEP_TIMEOUT=100 \
  MINIGPU_SBATCH_ARGS="${overcommit[*]}" MINIGPU_OUTPUT_DIR="$tmp/submit/sweeps" \
  bash "$root/scripts/slurm/sweep.sh" "$root/tests/inputs/slurm_sweep.yaml" 1 2 > "$tmp/submit/sweep.out" 2>&1
sweep_rc=$?
cat "$tmp/submit/sweep.out"
[ "$sweep_rc" -eq 0 ] || fail "sweep.sh exited $sweep_rc"
merged=""
for f in "$tmp"/submit/sweeps/sweep-*/merged.csv; do
  [ -f "$f" ] && merged="$f"
done
[ -n "$merged" ] || fail "sweep.sh wrote no merged.csv"
python3 - "$merged" <<'EOF' || fail "merged.csv does not check out"
import csv, sys
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    rows = list(csv.DictReader(f))
ranks = sorted({r["job_ranks"] for r in rows})
bad = [r for r in rows if r["verified"] != "true"]
if ranks != ["1", "2"] or bad or not rows:
    sys.exit(f"job_ranks {ranks}, {len(bad)} unverified of {len(rows)} rows")
print(f"{sys.argv[1]}: {len(rows)} rows from ranks {ranks}, all verified")
EOF
grep -q "mpirun -np 2 " "$(dirname "$merged")"/np2/slurm-*.out || fail "the sweep's 2-rank job did not launch with mpirun"
say "sweep finished in $((SECONDS - sweep_started))s"
say "PASS in $((SECONDS - started))s"
exit 0
