#!/usr/bin/env bash
# SIGTERM (Slurm's time limit) mid-run keeps every finished case: the run stops at the next
# case boundary, its directory is completed with run.json status "interrupted" and the reason,
# and no temporary is left behind. Once on one process (exit 128+15) and once under
# mpirun -np 2 with the signal sent to mpirun, which forwards it (mpirun's own exit is non-zero),
# and once through scripts/run.sh's launch, which reports 128+15 like minigpu.sbatch.
# The signal goes out as soon as the first finished case is on disk.
# Usage: check_signal.sh MPIEXEC MINIGPU INPUT
set -u
mpiexec="$1" minigpu="$2" input="$3"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0

interrupt() {  # interrupt NAME EXPECTED_RC|nonzero COMMAND...
  local name="$1" want="$2"
  shift 2
  "$@" --output-dir "$out/$name" >"$out/$name.log" 2>&1 &
  local pid=$! waited=0
  until compgen -G "$out/$name/*/results.csv" >/dev/null; do
    sleep 0.1
    waited=$((waited + 1))
    if [ "$waited" -gt 600 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "FAIL $name: no finished case on disk"; cat "$out/$name.log"; status=1; return
    fi
  done
  kill -TERM "$pid"
  wait "$pid"
  local rc=$?
  if { [ "$want" = nonzero ] && [ "$rc" -eq 0 ]; } || { [ "$want" != nonzero ] && [ "$rc" -ne "$want" ]; }; then
    echo "FAIL $name: exit code $rc, expected $want"; cat "$out/$name.log"; status=1
  fi
  /usr/bin/python3 - "$out/$name" "$name" <<'PY' || status=1
import glob, json, os, sys
root, name = sys.argv[1], sys.argv[2]
dirs = os.listdir(root)
if len(dirs) != 1 or ".partial" in dirs[0]:
    sys.exit(f"FAIL {name}: expected one completed run directory, found {dirs}")
record = json.load(open(os.path.join(root, dirs[0], "run.json")))
rows = open(os.path.join(root, dirs[0], "results.csv")).read().splitlines()[1:]
planned = record["cases_planned"]
done = len(record["results"])
problems = []
if record.get("status") != "interrupted":
    problems.append(f"status {record.get('status')!r}")
if "signal 15" not in record.get("stop_reason", ""):
    problems.append(f"stop_reason {record.get('stop_reason')!r}")
if not 1 <= done < planned:
    problems.append(f"{done} results, expected between 1 and {planned - 1}")
if len(rows) != done or not all(r["verified"] for r in record["results"]):
    problems.append("results.csv and run.json disagree, or a kept case is not verified")
if problems:
    sys.exit(f"FAIL {name}: " + "; ".join(problems))
print(f"{name}: interrupted after {done} of {planned} cases; {record['stop_reason']}")
PY
}

interrupt single 143 "$minigpu" run "$input"
# --resume keeps the interrupted run's cases (not measured again) and runs only the rest.
"$minigpu" run "$input" --output-dir "$out/resumed" --resume "$(ls -d "$out"/single/*)" >"$out/resumed.log" 2>&1 ||
  { echo "FAIL resume: exit $?"; cat "$out/resumed.log"; status=1; }
/usr/bin/python3 - "$out/single" "$out/resumed" <<'PY' || status=1
import glob, json, sys
before = json.load(open(glob.glob(sys.argv[1] + "/*/run.json")[0]))
after = json.load(open(glob.glob(sys.argv[2] + "/*/run.json")[0]))
kept = [r for r in after["results"] if r["check"].endswith("[resumed]")]
old = {r["case"]: r["seconds"] for r in before["results"]}
problems = []
if after.get("status") != "complete" or len(after["results"]) != after["cases_planned"]:
    problems.append(f"status {after.get('status')}, {len(after['results'])} of {after['cases_planned']} results")
if sorted(r["case"] for r in kept) != sorted(old) or any(r["seconds"] != old[r["case"]] for r in kept):
    problems.append("the resumed run did not keep exactly the interrupted run's cases and timings")
if problems:
    sys.exit("FAIL resume: " + "; ".join(problems))
print(f"resume: kept {len(kept)} finished case(s), ran {len(after['results']) - len(kept)}")
PY
# Open MPI's mpirun passes SIGTERM on to the ranks after odls_base_sigkill_timeout (1 s) and
# SIGKILLs them 1 s later: the run must stop between repetitions and write within that second.
interrupt mpirun_np2 nonzero "$mpiexec" --oversubscribe -np 2 "$minigpu" run "$input"
# scripts/run.sh's launch (run_main_job, its last line) maps mpirun's 1 back to 128+15, as
# minigpu.sbatch does: the README's main command reports an interrupted run as one.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
interrupt run_sh 143 bash -c 'source "$0/scripts/common.sh"; run_main_job 2 "$@"' "$root" "$minigpu" run "$input"
exit $status
