#!/usr/bin/env bash
# Runs of one name started together into one output directory (a Slurm job array does this)
# all complete, each in its own directory: 2 and then 8 minigpu processes at once. Before, the
# second of two runs in the same second finished every case and then failed with exit 3
# "cannot rename: Directory not empty", its results left in .partial-*. (The race itself is
# forced deterministically in test_runner's RunsOfOneNameAndSecondFinishingTogether...) Then
# one run under umask 022 and one under 077: the directory and its files follow the umask.
# Usage: check_same_name_runs.sh MINIGPU
set -u
minigpu="$1"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cat >"$out/same.yaml" <<'YAML'
run: {name: same, warmups: 0, repetitions: 1}
experiments:
  - {name: matmul, sizes: [32], dtypes: [float32], variants: [tiled]}
YAML
status=0
for runs in 2 8; do
  dir="$out/runs$runs"
  pids=()
  for i in $(seq "$runs"); do
    # Each run its own Open MPI session directory: singletons started in the same instant race
    # to create the shared /tmp/ompi.<host>.<uid> ("File exists", orte_init fails; Open MPI 4.1),
    # which is not the race this test is about.
    mkdir -p "$out/session$runs-$i"
    OMPI_MCA_orte_tmpdir_base="$out/session$runs-$i" \
      "$minigpu" run "$out/same.yaml" --output-dir "$dir" >"$out/run$runs-$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { echo "FAIL: run $((i + 1)) of $runs exited $?"; cat "$out/run$runs-$((i + 1)).log"; status=1; }
  done
  /usr/bin/python3 - "$dir" "$runs" <<'PY' || status=1
import collections, json, os, sys
root, runs = sys.argv[1], int(sys.argv[2])
names = sorted(os.listdir(root))
left = [n for n in names if ".partial" in n or ".failed" in n]
complete = [n for n in names if n not in left and json.load(open(os.path.join(root, n, "run.json")))["status"] == "complete"]
stamps = collections.Counter(n.split("-")[1] for n in complete)
if left or len(complete) != runs:
    sys.exit(f"FAIL {runs} runs: {len(complete)} complete directories, left behind {left}: {names}")
print(f"{runs} simultaneous runs: {runs} complete directories; {max(stamps.values())} shared one start second")
PY
done
# On a shared file system colleagues read each other's results: a run's directory and files
# follow the umask, as every tool's do (mkdtemp alone made the directory 0700 whatever it said).
for mask in 022 077; do
  (umask "$mask" && "$minigpu" run "$out/same.yaml" --output-dir "$out/umask$mask" >"$out/umask$mask.log" 2>&1) ||
    { echo "FAIL: the run under umask $mask exited $?"; cat "$out/umask$mask.log"; status=1; continue; }
  want_dir=$(printf '%o' $((0777 & ~0$mask))) want_file=$(printf '%o' $((0666 & ~0$mask)))
  run_dir="$(ls -d "$out/umask$mask"/*)"
  got_dir=$(stat -c %a "$run_dir") got_file=$(stat -c %a "$run_dir/run.json")
  if [ "$got_dir" != "$want_dir" ] || [ "$got_file" != "$want_file" ]; then
    echo "FAIL: under umask $mask the run directory is $got_dir and run.json $got_file, expected $want_dir and $want_file"
    status=1
  else
    echo "umask $mask: run directory $got_dir, run.json $got_file"
  fi
done
exit $status
