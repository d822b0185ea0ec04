#!/usr/bin/env bash
# Stands up a private single-node Slurm cluster on localhost (Debian's slurm-wlm and munge),
# submits scripts/slurm/minigpu.sbatch with 2 tasks (srun with the cluster's MpiDefault, pmix) on
# inputs/quickstart.yaml, and checks that the job COMPLETED with exit code 0:0 and that every
# result row verified; signals a second job as its time limit would (SIGTERM to the script and its
# tasks) and checks it exits 143 with its finished cases kept; suspends a third past its case
# budget and resumes it (it completes). Then runs scripts/slurm/sweep.sh on 1 and 2 ranks (mpirun
# launcher) and checks its merged table.
#
#   test_slurm_cluster.sh MINIGPU_BINARY REPO_ROOT
#
# Exit codes: 0 pass, 1 fail, 77 skipped (not root, or slurm-wlm/munge not installed).
# Everything (munge key and socket, slurm.conf, state, spool, logs, TmpFS, results) lives in one
# fresh temporary directory; the daemons run in the foreground as children of this script and
# are stopped by PID on exit, and a detached watchdog reaps them if this script is killed
# (cluster_lib.sh, shared with test_slurm_two_nodes.sh).
set -uo pipefail
# shellcheck source=cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
if [ "${1:-}" = "--reap" ]; then
  reap "$2"
  exit 0
fi

[ $# -eq 2 ] || { echo "usage: $0 MINIGPU_BINARY REPO_ROOT" >&2; exit 2; }
bin="$(realpath "$1")"
root="$(realpath "$2")"
started=$SECONDS

cluster_begin
[ -x "$bin" ] || { say "FAIL: no binary $bin"; exit 1; }

read -r ctld_port slurmd_port < <(free_ports 2)

start_munge

# --- slurm.conf ------------------------------------------------------------------------------------
hardware="$(slurmd -C 2>/dev/null | head -n 1)"
cpus="$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<< "$hardware")"
[ -n "$cpus" ] || fail "slurmd -C gave no CPU count: $hardware"
topology="$(tr ' ' '\n' <<< "$hardware" | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')"
cluster="mg$(tr -dc 'a-z0-9' < /dev/urandom | head -c 8)"
{
  slurm_conf_common
  cat <<EOF
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmdLogFile=$tmp/log/slurmd.log
TmpFS=$tmp/tmpfs
SlurmdTimeout=300
NodeName=localhost NodeAddr=127.0.0.1 $topology State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
} > "$tmp/etc/slurm.conf"
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

# --- the job: minigpu.sbatch, 2 tasks, srun (MpiDefault pmix), default input (quickstart) --------------------
cd "$tmp/submit" || fail "no $tmp/submit"
job_started=$SECONDS
job="$(env "$tag" MINIGPU_BIN="$bin" sbatch --parsable --ntasks=2 "${overcommit[@]}" \
  --output="$tmp/submit/job-%j.out" "$root/scripts/slurm/minigpu.sbatch")" || fail "sbatch refused the job"
job="${job%%;*}"
say "submitted job $job"
job_completed "$job" "$job_started"
grep -q "JobId=$job .*JobState=COMPLETED" "$tmp/log/jobcomp.txt" || fail "job completion record lacks job $job"
grep -q "srun --ntasks=2" "$tmp/submit/job-$job.out" || fail "the job did not launch with srun and the cluster's MpiDefault (pmix)"

# One quickstart run of one 2-rank MPI job, every row verified: the same check as the mpirun e2e test.
[ "$(ls "$tmp/submit/results")" = "$(ls "$tmp/submit/results" | grep '^quickstart-')" ] ||
  fail "the job wrote something other than a quickstart run"
python3 "$root/tests/e2e/check_run.py" --check-dir "$tmp/submit/results" --ranks 2 ||
  fail "the job's results do not check out"

# --- a forwarded SIGTERM, as at the time limit: the job exits 143 with the finished cases kept -------
# Slurm's time limit signals every step's tasks and the batch script: `scancel --signal=TERM`
# (the steps) and `scancel --batch --signal=TERM` (the script, which passes it to srun, which
# passes it to the tasks again) do the same here without waiting a minute for a limit. The
# tasks must stop, write and exit 143 (a second SIGTERM is no "now": that is SIGKILL), which
# srun, the script and so the job return. Then the script alone signalled (scancel --batch,
# a user's kill): it passes the signal to the tasks the same way, never to srun itself, which
# would kill them. (Before: the script signalled srun's helper child and the job ran to its end
# and exited 0; then srun itself, which killed the tasks before they wrote.)
# sigterm_job NAME SCANCEL_ARGS...: a 2-task job of interruptible.yaml signalled with
# `scancel SCANCEL_ARGS JOB` (each set in turn, separated by --) after its first finished case.
sigterm_job() {
  local name="$1" started=$SECONDS job
  shift
  job="$(env "$tag" MINIGPU_BIN="$bin" MINIGPU_OUTPUT_DIR="$tmp/submit/$name" sbatch --parsable --ntasks=2 \
    "${overcommit[@]}" --output="$tmp/submit/job-%j.out" "$root/scripts/slurm/minigpu.sbatch" \
    "$root/tests/inputs/interruptible.yaml")" || fail "sbatch refused the $name job"
  job="${job%%;*}"
  first_case_on_disk() { compgen -G "$tmp/submit/$name/*/results.csv" >/dev/null; }
  wait_for 120 "job $job's first finished case" first_case_on_disk
  local args=()
  for arg in "$@" --; do
    if [ "$arg" = -- ]; then scancel "${args[@]}" "$job" || fail "scancel ${args[*]} refused job $job"; args=(); else args+=("$arg"); fi
  done
  wait_for 120 "job $job to finish" job_done "$job"
  local code
  code="$(job_field "$job" ExitCode)"
  say "job $job ($name): JobState=$(job_field "$job" JobState) ExitCode=$code after $((SECONDS - started))s"
  [ "$code" = "143:0" ] || { cat "$tmp/submit/job-$job.out"; fail "the $name job's exit code is $code, expected 143:0"; }
  python3 - "$tmp/submit/$name" "$name" <<'PY' || { cat "$tmp/submit/job-$job.out"; fail "the $name job did not keep its finished cases"; }
import json, os, sys
root, name = sys.argv[1:3]
dirs = os.listdir(root)
if len(dirs) != 1 or not dirs[0].endswith(".interrupted"):
    sys.exit(f"expected one *.interrupted directory, found {dirs}")
record = json.load(open(os.path.join(root, dirs[0], "run.json")))
done = len(record["results"])
if record.get("status") != "interrupted" or "signal 15," not in record.get("stop_reason", ""):
    sys.exit(f"status {record.get('status')!r}, stop_reason {record.get('stop_reason')!r}")
if not 1 <= done < record["cases_planned"] or not all(r["verified"] for r in record["results"]):
    sys.exit(f"{done} of {record['cases_planned']} results kept, or one not verified")
print(f"{name} job: {dirs[0]}, {done} of {record['cases_planned']} cases kept, {record['stop_reason']}")
PY
  # The line that finishes it resubmits this script with the job's ranks and CPUs, the input, --resume.
  grep -E "^to finish it: sbatch --ntasks=2 --cpus-per-task=[0-9]+ [^ ]*/minigpu\.sbatch [^ ]*/interruptible\.yaml --resume [^ ]*\.interrupted$" \
    "$tmp/submit/job-$job.out" || { cat "$tmp/submit/job-$job.out"; fail "the $name job does not say how to finish it with sbatch"; }
}
sigterm_job time_limit --signal=TERM -- --batch --signal=TERM
sigterm_job script_only --batch --signal=TERM
# --- a suspended job: `scontrol suspend` (SIGSTOP to every task) past the case budget and the
# watchdog's silence threshold, then `scontrol resume`: the job completes, every case verified,
# without a watchdog line. (Before: it ended with exit 4 as soon as it was resumed.)
suspend_started=$SECONDS
job="$(env "$tag" MINIGPU_BIN="$bin" MINIGPU_OUTPUT_DIR="$tmp/submit/suspended" sbatch --parsable --ntasks=2 \
  "${overcommit[@]}" --output="$tmp/submit/job-%j.out" "$root/scripts/slurm/minigpu.sbatch" \
  "$root/tests/inputs/stallable.yaml" --case-timeout 6)" || fail "sbatch refused the suspended job"
job="${job%%;*}"
suspended_case_on_disk() { compgen -G "$tmp/submit/suspended/*/results.csv" >/dev/null; }
wait_for 120 "job $job's first finished case" suspended_case_on_disk
scontrol suspend "$job" || fail "scontrol suspend refused job $job"
sleep 10  # the suspension itself: past the 6 s budget and the 3 s silence
[ "$(job_field "$job" JobState)" = SUSPENDED ] || fail "job $job is $(job_field "$job" JobState), not SUSPENDED"
scontrol resume "$job" || fail "scontrol resume refused job $job"
job_completed "$job" "$suspend_started"
if grep -q "no progress for" "$tmp/submit/job-$job.out"; then fail "the watchdog took job $job's suspension for a stall"; fi
python3 "$root/tests/e2e/check_run.py" --check-dir "$tmp/submit/suspended" --ranks 2 ||
  fail "the suspended job's results do not check out"
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
# A killed job's leftover (NAME.partial-XXXXXX) and an interrupted run beside the complete one:
# --merge takes the complete run alone and gives the same table.
sweep_dir="$(dirname "$merged")"
complete_run="$(ls -d "$sweep_dir"/np2/*/ | head -n 1)"
cp -r "$complete_run" "${complete_run%/}.partial-Ab12Cd"
cp -r "$complete_run" "${complete_run%/}.interrupted"
cp "$merged" "$tmp/merged-before.csv"
bash "$root/scripts/slurm/sweep.sh" --merge "$sweep_dir" > "$tmp/submit/remerge.out" 2>&1 ||
  { cat "$tmp/submit/remerge.out"; fail "sweep.sh --merge beside a .partial-XXXXXX and an .interrupted run exited $?"; }
cmp -s "$merged" "$tmp/merged-before.csv" || fail "--merge beside unfinished runs changed merged.csv"
# clusters.md's next command draws each job's complete run from the merged table's path.
python3 "$root/scripts/plot.py" "$merged" > "$tmp/submit/plot.out" 2>&1 ||
  { cat "$tmp/submit/plot.out"; fail "plot.py on the sweep's merged.csv exited $?"; }
for job in np1 np2; do
  grep -q "/$job/[^/]*Z/[^/]*\.png$" "$tmp/submit/plot.out" || { cat "$tmp/submit/plot.out"; fail "plot.py on merged.csv drew nothing for $job"; }
done
if grep -q "partial-Ab12Cd\|\.interrupted" "$tmp/submit/plot.out"; then fail "plot.py drew an unfinished run"; fi
say "sweep finished in $((SECONDS - sweep_started))s"
say "PASS in $((SECONDS - started))s"
exit 0
