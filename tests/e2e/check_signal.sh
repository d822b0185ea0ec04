#!/usr/bin/env bash
# Ctrl-C and Slurm's time limit mid-run keep every finished case, the way a user meets them:
# - Ctrl-C in a terminal is SIGINT to the whole foreground process group. It is sent so to a
#   bare run and to `mpirun -np 2 minigpu run`; scripts/run.sh's launch (run_main_job, its last
#   line; the build before it is not what is tested) runs the quickstart itself on a
#   pseudo-terminal, where Ctrl-C is typed (tests/e2e/on_terminal.py).
# - Slurm's time limit is SIGTERM to the process (once, to a bare run); a scheduler's SIGTERM
#   to the launcher itself, and to the wrapper that passes it on (run_forwarding_signals, as
#   scripts/run.sh and the sbatch script run it) around the launcher under test.
# Each must print "interrupted", exit 128+N (130 for SIGINT), leave one directory named
# *.interrupted whose run.json says status "interrupted" with the signal, keep the finished
# cases verified, and `--resume DIR` must then complete that same directory in place: renamed
# to the run's complete name, the kept cases and timings unchanged, nothing else beside it.
# The one exception is Open MPI's mpirun signalled itself (MPICH's mpiexec passes SIGINT on and
# returns the ranks' 130): it sends its ranks SIGTERM and returns 1 whatever they return (a 30-line MPI probe: ranks exiting 130 on their own still
# give 1), so its exit code is checked to be 1 and its ranks to report SIGTERM; scripts/run.sh
# passes the signal to the ranks instead, so that its exit code is theirs.
# The signal goes out as soon as the first finished case is on disk; once more (bare run, SIGINT)
# while a first run measures the machine's ceilings, before any case: exit 130, the directory
# marked with no case, no partial table cached, and --resume runs it all.
# Usage: check_signal.sh MPIEXEC MINIGPU INPUT QUICKSTART_INPUT [minigpu|run_sh]
#   minigpu: the bare run, SIGTERM and mpirun (the C++ under test: the sanitizer pass runs it);
#   run_sh: scripts/run.sh's launch (a script's test); both when not given.
set -u
export OMPI_MCA_rmaps_base_oversubscribe=1  # Open MPI's --oversubscribe; MPICH's mpiexec refuses that flag and needs none
mpiexec="$1" minigpu="$2" input="$3" quickstart="$4" only="${5:-}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
# scripts/run.sh's launch with the launcher under test (run.sh itself takes its build's).
launch_sh=(env MINIGPU_MPIEXEC="$mpiexec" bash -c 'source "$0/scripts/common.sh"; run_main_job 2 "$@"' "$root")

# foreground_group COMMAND...: (run with &) COMMAND as a terminal starts a job, the leader of a process group
# of its own with SIGINT at its default (a background job of this script would inherit SIGINT
# ignored, and a shell cannot trap a signal ignored on entry).
foreground_group() {
  exec /usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# interrupt NAME SIGNAL TARGET EXPECTED_RC SAID COMMAND...: (EXPECTED_RC: one code or A|B) starts COMMAND in a process group of
# its own, sends SIGNAL to the group (TARGET group) or to the process (TARGET process) once a
# case is on disk, and checks the exit code, that the output says SAID, and the directory.
# TARGET terminal: COMMAND runs on a pseudo-terminal (on_terminal.py) and Ctrl-C is typed there.
interrupt() {
  local name="$1" sig="$2" target="$3" want="$4" said="$5"
  shift 5
  if [ "$target" = terminal ]; then
    /usr/bin/python3 "$root/tests/e2e/on_terminal.py" "$@" --output-dir "$out/$name" >"$out/$name.log" 2>&1 &
  else
    foreground_group "$@" --output-dir "$out/$name" >"$out/$name.log" 2>&1 &
  fi
  local pid=$! waited=0
  until compgen -G "$out/$name/*/results.csv" >/dev/null; do
    sleep 0.1
    waited=$((waited + 1))
    if [ "$waited" -gt 1200 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "FAIL $name: no finished case on disk"; cat "$out/$name.log"; status=1; return
    fi
  done
  case "$target" in
    group) kill -s "$sig" -- "-$pid" ;;
    terminal) kill -s USR1 "$pid" ;;  # on_terminal.py types Ctrl-C (SIGINT only)
    *) kill -s "$sig" "$pid" ;;
  esac
  wait "$pid"
  local rc=$?
  case "|$want|" in
    *"|$rc|"*) ;;
    *) echo "FAIL $name: exit code $rc, expected $want"; cat "$out/$name.log"; status=1 ;;
  esac
  grep -q "$said" "$out/$name.log" || { echo "FAIL $name: the output never says '$said'"; cat "$out/$name.log"; status=1; }
  /usr/bin/python3 - "$out/$name" "$name" "$sig" <<'PY' || status=1
import json, os, signal, sys
root, name, sig = sys.argv[1:4]
number = int(getattr(signal, "SIG" + sig))
dirs = os.listdir(root)
if len(dirs) != 1 or not dirs[0].endswith(".interrupted"):
    sys.exit(f"FAIL {name}: expected one directory named *.interrupted, found {dirs}")
record = json.load(open(os.path.join(root, dirs[0], "run.json")))
rows = open(os.path.join(root, dirs[0], "results.csv")).read().splitlines()[1:]
planned, done = record["cases_planned"], len(record["results"])
problems = []
if record.get("status") != "interrupted":
    problems.append(f"status {record.get('status')!r}")
if f"signal {number}," not in record.get("stop_reason", "") and not (name == "mpirun" and "signal 15," in record.get("stop_reason", "")):
    problems.append(f"stop_reason {record.get('stop_reason')!r}")
if not 1 <= done < planned:
    problems.append(f"{done} results, expected between 1 and {planned - 1}")
if len(rows) != done or not all(r["verified"] for r in record["results"]):
    problems.append("results.csv and run.json disagree, or a kept case is not verified")
if problems:
    sys.exit(f"FAIL {name}: " + "; ".join(problems))
print(f"{name}: interrupted after {done} of {planned} cases in {dirs[0]}; {record['stop_reason']}")
PY
}

# resumed NAME COMMAND...: `COMMAND --resume DIR` completes NAME's interrupted run in place.
resumed() {
  local name="$1" dir
  shift
  dir="$(ls -d "$out/$name"/*.interrupted 2>/dev/null)" || return
  cp "$dir/run.json" "$out/$name.before.json"
  "$@" --resume "$dir" >"$out/$name.resumed.log" 2>&1 || { echo "FAIL $name resume: exit $?"; cat "$out/$name.resumed.log"; status=1; return; }
  /usr/bin/python3 - "$out/$name" "$out/$name.before.json" "$dir" "$name" <<'PY' || status=1
import json, os, sys
root, before_path, interrupted, name = sys.argv[1:5]
dirs = os.listdir(root)
complete = os.path.basename(interrupted)[: -len(".interrupted")]
if dirs != [complete]:
    sys.exit(f"FAIL {name} resume: expected {interrupted} completed in place as {complete}, found {dirs}")
before = json.load(open(before_path))
after = json.load(open(os.path.join(root, complete, "run.json")))
kept = [r for r in after["results"] if r["check"].endswith("[resumed]")]
old = {r["case"]: r["seconds"] for r in before["results"]}
problems = []
if after.get("status") != "complete" or len(after["results"]) != after["cases_planned"]:
    problems.append(f"status {after.get('status')}, {len(after['results'])} of {after['cases_planned']} results")
if sorted(r["case"] for r in kept) != sorted(old) or any(r["seconds"] != old[r["case"]] for r in kept):
    problems.append("the resumed run did not keep exactly the interrupted run's cases and timings")
if after.get("resumed_from") != interrupted:
    problems.append(f"resumed_from {after.get('resumed_from')!r}")
if problems:
    sys.exit(f"FAIL {name} resume: " + "; ".join(problems))
print(f"{name} resume: kept {len(kept)} finished case(s), ran {len(after['results']) - len(kept)}, in {complete}")
PY
}

if [ "$only" != run_sh ]; then
# Ctrl-C on a bare run, then its resume by the line the run printed for it, as a user copies it:
# the same arguments (--warmups 0, the user's own override, with them), less --output-dir (a
# resumed run completes in place), and --resume DIR.
interrupt bare INT group 130 "interrupted by SIGINT" "$minigpu" run "$input" --warmups 0
hint="$(sed -n 's/^to finish it: //p' "$out/bare.log")"
want="$minigpu run $input --warmups 0 --resume $(ls -d "$out/bare"/*.interrupted 2>/dev/null)"
[ "$hint" = "$want" ] || { echo "FAIL bare: the run says 'to finish it: $hint', expected '$want'"; status=1; }
resumed bare bash -c 'eval "$0 \"\$@\""' "${hint% --resume *}"
# Ctrl-C while a first run measures the machine's ceilings (an empty cache: seconds before any
# case, and the first thing a new user's run does): the run stops there with exit 130, its
# directory marked interrupted with no case, caches no partial table, and --resume runs it all.
measuring() {
  local name=ceilings cache="$out/ceilings-cache" waited=0 rc
  mkdir -p "$cache"
  MINIGPU_CEILINGS_DIR="$cache" foreground_group "$minigpu" run "$input" --output-dir "$out/$name" \
    >"$out/$name.log" 2>&1 &
  local pid=$!
  until grep -q "measuring this machine's ceilings" "$out/$name.log"; do
    sleep 0.05
    waited=$((waited + 1))
    if [ "$waited" -gt 2400 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "FAIL $name: the run never said it measures the ceilings"; cat "$out/$name.log"; status=1; return
    fi
  done
  kill -s INT -- "-$pid"
  wait "$pid"
  rc=$?
  [ "$rc" = 130 ] || { echo "FAIL $name: exit code $rc, expected 130"; cat "$out/$name.log"; status=1; }
  /usr/bin/python3 - "$out/$name" "$cache" <<'PY' || status=1
import glob, json, os, sys
root, cache = sys.argv[1:3]
dirs = os.listdir(root)
if len(dirs) != 1 or not dirs[0].endswith(".interrupted"):
    sys.exit(f"FAIL ceilings: expected one directory named *.interrupted, found {dirs}")
record = json.load(open(os.path.join(root, dirs[0], "run.json")))
problems = []
if record.get("status") != "interrupted" or "signal 2," not in record.get("stop_reason", ""):
    problems.append(f"status {record.get('status')!r}, stop_reason {record.get('stop_reason')!r}")
if record["results"]:
    problems.append(f"{len(record['results'])} results before the first case")
if glob.glob(os.path.join(cache, "ceilings-*")):
    problems.append(f"a partial table was cached: {os.listdir(cache)}")
if problems:
    sys.exit("FAIL ceilings: " + "; ".join(problems))
print(f"ceilings: interrupted while measuring them, in {dirs[0]}; {record['stop_reason']}")
PY
  # Resumed with the suite's cache: measuring them all again under ASan took 30 s.
  resumed "$name" "$minigpu" run "$input"
}
measuring
# Slurm's time limit: SIGTERM to the process.
interrupt term TERM process 143 "interrupted by SIGTERM" "$minigpu" run "$input"
# Ctrl-C on mpirun: Open MPI's mpirun SIGTERMs its ranks, kills them 1 s later and returns 1.
# The ranks stop between repetitions and write within that second; the directory says so even
# if the kill comes first (rank 0 marks it the moment the signal arrives). MPICH's mpiexec
# (Hydra) passes SIGINT on as it is and returns the ranks' 130 -- or 0: after a forwarded
# SIGINT, MPICH 4.0.2's Hydra reports some ranks' 130 as 0 (a 30-line MPI probe whose ranks
# write the 130 they return to a file, 30 Ctrl-Cs: 60 of 60 ranks returned 130;
# `-print-all-exitcodes` said 0 for one rank in 18, for both in 12, so mpiexec returned 0 in
# 12 of 30). The ranks' own status is what run.json says, checked below; scripts/run.sh
# returns 130 whatever Hydra says.
case "$(bash -c 'source "$0/scripts/common.sh"; launcher_flavour "$1"' "$root" "$mpiexec")" in
  mpich) mpirun_rc="130|0" mpirun_said="interrupted by SIGINT" ;;
  *) mpirun_rc=1 mpirun_said="interrupted by SIGTERM" ;;
esac
interrupt mpirun INT group "$mpirun_rc" "$mpirun_said" "$mpiexec" -np 2 "$minigpu" run "$input"
# Its resume by the line it printed, which must start with the launcher as typed: without it the
# copied command is one rank, and an input asking for 2 is refused.
hint="$(sed -n 's/^to finish it: //p' "$out/mpirun.log")"
want="$mpiexec -np 2 $minigpu run $input --resume $(ls -d "$out/mpirun"/*.interrupted 2>/dev/null)"
[ "$hint" = "$want" ] || { echo "FAIL mpirun: the run says 'to finish it: $hint', expected '$want'"; status=1; }
resumed mpirun bash -c 'eval "$0 \"\$@\""' "${hint% --resume *}"
# SIGTERM to the launcher alone (kill, a scheduler): both pass SIGTERM to the ranks, which
# stop and keep their cases. Open MPI's mpirun returns 1 as for SIGINT; Hydra returns the
# ranks' 143 or, as for SIGINT, 0 (the 30-line probe, 10 SIGTERMs: 143 in 5, 0 in 5, every
# rank returned 143).
case "$mpirun_rc" in 1) term_rc=1 ;; *) term_rc="143|0" ;; esac
interrupt mpirun_term TERM process "$term_rc" "interrupted by SIGTERM" "$mpiexec" -np 2 "$minigpu" run "$input"
# The same SIGTERM to the wrapper that passes it on: 143 under either MPI, whatever it returns.
forward=(bash -c 'source "$0/scripts/signal_exit.sh"
MINIGPU_LAUNCHER_FLAVOUR="$(launcher_flavour "$1")" run_forwarding_signals "$@"' "$root")
interrupt forwarded_term TERM process 143 "interrupted by SIGTERM" "${forward[@]}" "$mpiexec" -np 2 "$minigpu" run "$input"
fi
[ "$only" = minigpu ] && exit $status
# Ctrl-C typed in a terminal running scripts/run.sh, the README's main command, on the
# quickstart at its own repetition counts (the live progress line on, as a terminal has it): the
# script passes SIGINT to the ranks once (the launcher sits in a process group of its own), and
# returns their 130.
interrupt run_sh INT terminal 130 "interrupted by SIGINT" "${launch_sh[@]}" "$minigpu" run "$quickstart"
resumed run_sh "${launch_sh[@]}" "$minigpu" run "$quickstart"
exit $status
