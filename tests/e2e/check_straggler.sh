#!/usr/bin/env bash
# Stragglers are named, and only they. The shipped inputs/matmul_scaling.yaml (n = 1024) on 2
# ranks, as its header runs it, must flag no p = 1 row as straggling: those rows leave rank 1
# idle by design, and an idle rank is no yardstick for the working one (it was: "rank 0 took
# 1.3e+04x the next slowest rank's mean time" on every p = 1 row, and every finding then
# unreliable). A p = 2 row may straggle for real, and then says why: the machine was loaded, or
# the straggling rank waited for a CPU (a run queue, or a vCPU the hypervisor stole: on CI's
# 2-vCPU VMs rank 1 once took 1.6x on a quiet node). A plain run whose p = 2 straggler has
# neither is measured again, up to 3 times; one that straggles unexplained every time fails.
# The same run with rank 1 alone slowed on purpose (MINIGPU_INJECT_DELAY in its environment
# only, through Open MPI's MPMD syntax; the delay is added to its times, not spent on a CPU)
# must name rank 1 on every p = 2 row, not blame a CPU wait for it, and name no rank on a
# p = 1 row, where rank 1 does no work to be slow at. On a loaded machine the first two cannot
# be told (rank 0 may be as slow; the wait is real: a build beside it kept rank 1 queued 50 % of
# the time): both runs are measured again, and a machine loaded in all 3 says so, not checked.
# Usage: check_straggler.sh MPIEXEC MINIGPU INPUT
set -u
export OMPI_MCA_rmaps_base_oversubscribe=1  # Open MPI's --oversubscribe; MPICH's mpiexec refuses that flag and needs none
mpiexec="$1" minigpu="$2" input="$3"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0

for attempt in 1 2 3; do
  rm -rf "$out/plain" "$out/slowed"
  "$mpiexec" -np 1 "$minigpu" run "$input" --output-dir "$out/slowed" : \
    -np 1 env MINIGPU_INJECT_DELAY=matmul_scaling:0.05 "$minigpu" run "$input" --output-dir "$out/slowed" \
    >"$out/slowed.log" 2>&1 || { echo "FAIL: the run with rank 1 slowed exited $?"; cat "$out/slowed.log"; exit 1; }
  "$mpiexec" -np 2 "$minigpu" run "$input" --output-dir "$out/plain" >"$out/plain.log" 2>&1 ||
    { echo "FAIL: the shipped input on 2 ranks exited $?"; cat "$out/plain.log"; exit 1; }
  /usr/bin/python3 - "$out" "$attempt" <<'PY'
import glob, json, re, sys
out, attempt = sys.argv[1], int(sys.argv[2])
problems = []
def record(name):
    [path] = glob.glob(f"{out}/{name}/*/run.json")
    return json.load(open(path))
def rows(name):
    return record(name)["results"]
def flag(why):
    """(how many times slower, percent of its time waiting for a CPU) as the straggler's flag
    gives them; None where the flag does not give both."""
    m = re.search(r"straggler: rank \d+ \([^)]*\) took ([0-9.e+]+)x the next slowest rank's mean time, "
                  r"and waited for a CPU (\d+) % of the time \(run queue \d+ %, steal \d+ %\)", why)
    return (float(m.group(1)), int(m.group(2))) if m else None
def waited(why):
    return flag(why)[1] if flag(why) else None
loaded = record("plain").get("machine_load", {}).get("loaded", False)
unexplained, undecided = [], []  # undecided: a loaded machine's real wait hides the check
for r in rows("plain"):
    why = r["unreliable_because"]
    if "straggler" not in why:
        continue
    if r["params"]["ranks"] == "1":
        problems.append(f"plain run: {r['case']}, where rank 1 idles, flagged: {why}")
    elif waited(why) is None:
        problems.append(f"plain run: {r['case']}'s straggler flag does not say the rank's CPU wait: {why}")
    elif not loaded and waited(why) < 10:
        unexplained.append(f"plain run: {r['case']} flagged on a quiet machine: {why}")
slowed = rows("slowed")
slowed_loaded = record("slowed").get("machine_load", {}).get("loaded", False)
for r in slowed:
    named = "straggler: rank 1 " in r["unreliable_because"]
    if r["params"]["ranks"] == "2" and not named:  # on a loaded machine rank 0 may be as slow
        miss = f"slowed run: {r['case']} does not name rank 1: {r['unreliable_because']!r}"
        (undecided if slowed_loaded else problems).append(miss)
    # x times slower from waiting alone is a wait of 1 - 1/x of its time; the injected delay is
    # added to its times, not spent, so on a quiet machine the wait it reports falls short of that.
    if named and flag(r["unreliable_because"]) is None:
        problems.append(f"slowed run: {r['case']}'s straggler flag does not say the rank's CPU wait: {r['unreliable_because']}")
    elif named and flag(r["unreliable_because"])[1] >= 100 * (1 - 1 / flag(r["unreliable_because"])[0]):
        blame = f"slowed run: {r['case']} blames a CPU wait for a delay spent on none: {r['unreliable_because']}"
        (undecided if slowed_loaded else problems).append(blame)
    if r["params"]["ranks"] == "1" and "straggler" in r["unreliable_because"]:
        problems.append(f"slowed run: {r['case']}, where rank 1 idles, flagged: {r['unreliable_because']}")
if not any(r["params"]["ranks"] == "2" for r in slowed) or not any(r["params"]["ranks"] == "1" for r in slowed):
    problems.append("the input no longer runs p = 1 and p = 2 rows")
if (unexplained or undecided) and attempt < 3 and not problems:  # anything else fails at once
    print(f"attempt {attempt}: " + "; ".join(unexplained + [u + " (the machine was loaded)" for u in undecided]) +
          "; measuring again")
    sys.exit(3)
problems += unexplained
for p in problems:
    print("FAIL " + p)
if problems:
    sys.exit(1)
for u in undecided:  # loaded in every run: the wait was real, so it cannot tell
    print(f"NOT CHECKED (the machine was loaded in all 3 runs): {u}")
print(f"attempt {attempt}: no unexplained straggler in {len(rows('plain'))} rows of the plain run; "
      "rank 1 named on every p = 2 row when slowed")
PY
  rc=$?
  [ "$rc" = 3 ] || { [ "$rc" = 0 ] || status=1; break; }
done
exit $status
