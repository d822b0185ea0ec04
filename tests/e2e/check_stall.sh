#!/usr/bin/env bash
# No hung jobs (docs/robustness.md): a rank that stops answering (SIGSTOP of rank 1, then of
# rank 0, whose partner must then report; rank 0 stopped in its write, with MINIGPU_INJECT_FAULT=
# 0:write:stop@2, while rank 1 waits between cases) or progressing (a phase that never returns:
# MINIGPU_INJECT_FAULT=RANK:POINT:hang@K, at a run or at rank 0's write of a case or of the
# run's end) ends a 2-rank job within its case budget (--case-timeout) plus a few seconds, with
# exit 4 and a line naming the rank, the case and the phase; the finished cases stay in the run's
# .partial-* (or .interrupted) directory and --resume completes it in place, every case verified.
# And no false alarm: the 2-rank quickstart beside four busy loops, with the default budgets, and
# a job whose ranks are all stopped past the budget and continued (a suspended job).
# Usage: check_stall.sh MPIEXEC MINIGPU INPUT QUICKSTART
set -u
export OMPI_MCA_rmaps_base_oversubscribe=1  # Open MPI's --oversubscribe; MPICH's mpiexec refuses that flag and needs none
mpiexec="$1" minigpu="$2" input="$3" quickstart="$4"
budget=6 bound=16  # seconds: the case budget, and the most a stalled job may outlive it
out="$(mktemp -d)"
leftovers=()
cleanup() {
  # Ranks this script stopped, and any an injected stop left behind its launcher.
  for pid in "${leftovers[@]}" $(pgrep -f "$minigpu run .*$out"); do
    kill -CONT "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
  done
  rm -rf "$out"
}
trap cleanup EXIT
status=0
fail() { echo "FAIL $1: $2"; [ -f "$out/$1.log" ] && cat "$out/$1.log"; status=1; }

# The pid of rank RANK of the minigpu processes whose output goes to DIR.
rank_pid() {
  local rank="$1" dir="$2" pid
  for pid in $(pgrep -f "$minigpu run .*$dir"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxE "(OMPI_COMM_WORLD_RANK|PMI_RANK)=$rank"; then
      echo "$pid"; return
    fi
  done
}

# The ranks exit 4. Open MPI's mpirun returns the first failed rank's status: 4. MPICH 4.0's
# mpiexec (Hydra) returns the OR of every rank's wait status, and the status it keeps for a rank
# it killed in cleanup races with its event order (pmodels/mpich#5930, #7057): SIGKILL's 9 may
# join the reporter's 4, or Hydra's placeholder 1 replace it. So under Hydra 4.0 alone, RC 1 or
# 9 passes when Hydra's own banner gives a rank's status as 1 or 9.
hydra_version="$("$mpiexec" --version 2>/dev/null | sed -n 's/^ *Version: *//p' | head -n 1)"
hydra_cleanup_status() {
  local rc="$1" log="$2"
  case "$hydra_version" in 4.0.*) ;; *) return 1 ;; esac
  { [ "$rc" -eq 1 ] || [ "$rc" -eq 9 ]; } && grep -qE "^=   EXIT CODE: (1|9)\$" "$log"
}

# stall NAME RANK_TO_STOP|- [FAULT [OPTION...]]: runs the input on 2 ranks, stops a rank once a case
# is on disk (or lets an injected fault do it), and checks the end, the message and what was kept.
stall() {
  local name="$1" stop="$2" fault="${3:-}"
  shift $(($# < 3 ? $# : 3))
  env ${fault:+MINIGPU_INJECT_FAULT=$fault} timeout 300 "$mpiexec" -np 2 \
    "$minigpu" run "$input" --case-timeout "$budget" --output-dir "$out/$name" "$@" >"$out/$name.log" 2>&1 &
  local job=$! waited=0
  until compgen -G "$out/$name/*/results.csv" >/dev/null; do
    sleep 0.1
    waited=$((waited + 1))
    if [ "$waited" -gt 1200 ] || ! kill -0 "$job" 2>/dev/null; then fail "$name" "no finished case on disk"; return; fi
  done
  local start=$SECONDS
  if [ "$stop" != - ]; then
    local pid
    pid="$(rank_pid "$stop" "$out/$name")"
    [ -n "$pid" ] || { fail "$name" "rank $stop not found"; return; }
    kill -STOP "$pid"
    leftovers+=("$pid")
  fi
  wait "$job"
  local rc=$? took=$((SECONDS - start))
  echo "$name: exit $rc after $took s"
  if [ "$rc" -ne 4 ] && hydra_cleanup_status "$rc" "$out/$name.log"; then
    echo "$name: MPICH 4.0's mpiexec returned $rc, the status its cleanup gave the rank it killed (docs/robustness.md)"
  else
    [ "$rc" -eq 4 ] || fail "$name" "exit code $rc, expected 4 (124: the job hung)"
  fi
  [ "$took" -le $((budget + bound)) ] || fail "$name" "took $took s, more than the $budget s budget + $bound s"
  grep -E "minigpu: rank [0-9]+: error: no progress for" "$out/$name.log" || fail "$name" "no watchdog line"
}

# kept NAME CULPRIT_TEXT...: the watchdog line names them; the kept directory holds verified cases.
kept() {
  local name="$1"
  shift
  for text in "$@"; do grep -q -- "$text" "$out/$name.log" || fail "$name" "the message lacks '$text'"; done
  /usr/bin/python3 - "$out/$name" "$name" <<'PY' || status=1
import glob, json, sys
# .partial-* when the job's end killed the ranks outright; .interrupted when a rank heard the
# launcher's SIGTERM first (a rank stopped by SIGSTOP is continued and then terminated).
dirs = glob.glob(sys.argv[1] + "/*.partial-*") + glob.glob(sys.argv[1] + "/*.interrupted")
if len(dirs) != 1:
    sys.exit(f"FAIL {sys.argv[2]}: expected one .partial-* or .interrupted directory, found {dirs}")
record = json.load(open(dirs[0] + "/run.json"))
done = record["results"]
if not done or not all(r["verified"] for r in done):
    sys.exit(f"FAIL {sys.argv[2]}: {len(done)} kept cases, all verified expected")
print(f"{sys.argv[2]}: {len(done)} finished case(s) kept in {dirs[0]}")
PY
}

# resumed NAME: --resume on the kept directory runs the rest; every case verified.
resumed() {
  local name="$1" dir
  dir="$(ls -d "$out/$name"/*.partial-* "$out/$name"/*.interrupted 2>/dev/null)"
  timeout 300 "$mpiexec" -np 2 "$minigpu" run "$input" --resume "$dir" \
    >"$out/$name-resumed.log" 2>&1 || { fail "$name-resumed" "exit $?"; return; }
  /usr/bin/python3 - "$out/$name" "$name" <<'PY' || status=1
import glob, json, sys
runs = glob.glob(sys.argv[1] + "/*/run.json")
if len(runs) != 1 or ".partial" in runs[0]:
    sys.exit(f"FAIL {sys.argv[2]} resumed: not completed in place: {runs}")
record = json.load(open(runs[0]))
kept = [r for r in record["results"] if r["check"].endswith("[resumed]")]
if record["status"] != "complete" or len(record["results"]) != record["cases_planned"] or not kept \
        or not all(r["verified"] for r in record["results"]):
    sys.exit(f"FAIL {sys.argv[2]} resumed: status {record['status']}, {len(record['results'])} of "
             f"{record['cases_planned']}, {len(kept)} kept")
print(f"{sys.argv[2]} resumed: {len(kept)} kept, {len(record['results']) - len(kept)} run, all verified")
PY
}

# No false alarm: the 2-rank quickstart with the default budgets, beside four busy loops
# fighting its ranks for the two cores, must finish verified without a watchdog line.
contention() {
  local hogs=() i
  for i in 1 2 3 4; do (while :; do :; done) & hogs+=($!); done
  timeout 600 "$mpiexec" -np 2 "$minigpu" run "$quickstart" --output-dir "$out/busy" \
    >"$out/busy.log" 2>&1
  local rc=$?
  kill "${hogs[@]}" 2>/dev/null
  wait "${hogs[@]}" 2>/dev/null
  [ "$rc" -eq 0 ] || fail busy "the quickstart under contention exited $rc"
  if grep -q "no progress for" "$out/busy.log"; then fail busy "the watchdog tripped on a busy machine"; fi
  echo "busy: the quickstart beside 4 busy loops finished, exit $rc, no watchdog line"
}
contention

# No false alarm after a suspension: both ranks stopped together for longer than the case budget
# and the silence threshold (a job suspended and resumed, as Slurm's `scontrol suspend` does),
# then continued, finish the run verified, without a watchdog line.
suspended() {
  timeout 300 "$mpiexec" -np 2 "$minigpu" run "$input" --case-timeout "$budget" --output-dir "$out/suspended" \
    >"$out/suspended.log" 2>&1 &
  local job=$! waited=0 pids
  until compgen -G "$out/suspended/*/results.csv" >/dev/null; do
    sleep 0.1
    waited=$((waited + 1))
    if [ "$waited" -gt 1200 ] || ! kill -0 "$job" 2>/dev/null; then fail suspended "no finished case on disk"; return; fi
  done
  pids="$(rank_pid 0 "$out/suspended") $(rank_pid 1 "$out/suspended")"
  kill -STOP $pids
  leftovers+=($pids)
  sleep $((budget + 4))  # the suspension itself, past the budget and the silence threshold
  kill -CONT $pids
  wait "$job"
  local rc=$?
  if [ "$rc" -ne 0 ] || grep -q "no progress for" "$out/suspended.log"; then
    fail suspended "exit $rc after a suspension of $((budget + 4)) s: the watchdog took it for a stall?"
  else
    echo "suspended: both ranks stopped $((budget + 4)) s and continued; exit 0, no watchdog line"
  fi
}
suspended

stall sigstop 1
kept sigstop "rank 1 (" "stopped answering" "matmul tiled n="
resumed sigstop
# Rank 0 itself stopped: rank 1 reports.
stall sigstop_root 0
kept sigstop_root "minigpu: rank 1: error" "rank 0 (" "stopped answering"
stall hang_run - "1:run:hang@3"
kept hang_run "rank 1 (" "stopped progressing" "waiting for them: rank 0 in MPI_"
stall hang_write - "0:write:hang@2"
kept hang_write "rank 0 (" "stopped progressing" "/write"
# The run's last write (after the 6 cases' own, each case short here) never returns: rank 0's
# watchdog ends the job.
stall hang_last_write - "0:write:hang@7" --set run.max_time_s=0.2
kept hang_last_write "minigpu: rank 0: error" "rank 0 (" "stopped progressing" "the run's last write"
# Rank 0 stopped inside its write of a case, as sigstop_root's SIGSTOP can land (CI,
# 2026-12-07): rank 1 waits for it between cases, with no case budget of its own, and reports.
stall root_stopped_writing - "0:write:stop@2"
kept root_stopped_writing "minigpu: rank 1: error" "outside any case" "rank 0 (" "stopped answering"
exit "$status"
