#!/usr/bin/env bash
# The GPU check's dress rehearsal, with no GPU: a host build packed as a prebuilt folder
# (scripts/gpu/pack_prebuilt.sh --this-cpu) and scripts/gpu/gpu_check.sh --prebuilt --rehearsal
# run from it, an nvidia-smi stand-in on the PATH and emulated GPUs, into a stand-in $OUT:
#  1. the pack refuses what would not travel: a folder over its size limit, and (as root) binaries
#     whose libraries a bare node with the bundle would not have (here a bundle that carries none:
#     ldd on this machine finds them all, as it did for the prebuilt whose ScaLAPACK stayed behind);
#  2. a short deadline: the first step only, the rest listed as skipped for the deadline, the
#     report written all the same, exit 0;
#  3. steps that fail are recorded as failed, the next steps still run, the report is written;
#  4. --rerun of the short run's steps.tsv with a deadline that fits: every step in the priority order of
#     ../shared/GPU_OWED.md, each passed or skipped for a stated reason, every run verified, the
#     rank given the machine's cores as scripts/run.sh lays them out, at most 8 files in OUT.
# Usage: check_gpu_check.sh BUILD_DIR
set -u
build="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

MINIGPU_XZ_LEVEL=0 bash "$root/scripts/gpu/pack_prebuilt.sh" "$build" "$tmp/prebuilt" --this-cpu >"$tmp/pack.log" 2>&1 ||
  { cat "$tmp/pack.log"; echo "FAIL: pack_prebuilt.sh"; exit 1; }
grep -q "^ok: every binary finds its libraries" "$tmp/prebuilt/CHECKS" || fail "no library check in CHECKS"
if MINIGPU_XZ_LEVEL=0 bash "$root/scripts/gpu/pack_prebuilt.sh" "$build" "$tmp/small" --this-cpu --limit-mib 1 \
  >"$tmp/small.log" 2>&1; then
  fail "a pack over --limit-mib 1 passed"
fi
grep -q "over the 1 MiB that travel" "$tmp/small.log" || fail "the size refusal does not say why: $(tail -n 2 "$tmp/small.log")"
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$tmp/empty_bundle/debs"
  : >"$tmp/empty_bundle/MANIFEST"
  if MINIGPU_XZ_LEVEL=0 bash "$root/scripts/gpu/pack_prebuilt.sh" "$build" "$tmp/bare" --this-cpu \
    --bundle "$tmp/empty_bundle" >"$tmp/bare.log" 2>&1; then
    fail "a pack whose bundle carries no library passed"
  fi
  grep -q "do not travel (bare base + bundle): minigpu: .*libyaml-cpp" "$tmp/bare.log" ||
    fail "the bare-node refusal does not name minigpu's libraries: $(grep -m 3 error "$tmp/bare.log")"
else
  echo "not checked (needs root): the bare-node library check"
fi

mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "0, NVIDIA H100 80GB HBM3 (stand-in), 9.0, 000.00, 81559 MiB"\n' >"$tmp/bin/nvidia-smi"
chmod +x "$tmp/bin/nvidia-smi"
check() {  # check NAME DEADLINE [ARGS...]: runs the rehearsal into $tmp/NAME; its exit code
  local name="$1" deadline="$2"
  shift 2
  PATH="$tmp/bin:$PATH" MINIGPU_TORCH_PYTHON=/bin/false bash "$root/scripts/gpu/gpu_check.sh" \
    --prebuilt "$tmp/prebuilt" --rehearsal --deadline "$deadline" --out "$tmp/$name" "$@" >"$tmp/$name.log" 2>&1
}
order="preflight gemm_tests reference clocks matmul matmul_low_precision logging lazy shared_transfer_gpu shared_matmul_strong_scaling_gpu
shared_multi_gpu_concurrency_gpu transfer multi_gpu_concurrency other_tests matmul_uniform torch ncu"
steps_of() { tail -n +2 "$tmp/$1/steps.tsv" | cut -f1 | tr '\n' ' '; }
status_of() { awk -F'\t' -v s="$2" '$1 == s { print $2 }' "$tmp/$1/steps.tsv"; }
files_ok() {
  local n
  n="$(find "$tmp/$1" -mindepth 1 | wc -l)"
  [ "$n" -le 8 ] || fail "$1: $n entries in OUT, at most 8 travel back"
  for f in report.md steps.tsv gpus.csv all.tar.gz; do [ -f "$tmp/$1/$f" ] || fail "$1: no $f in OUT"; done
}

# 2. A deadline that leaves room for the first step only.
check short 45 || { tail -n 30 "$tmp/short.log"; fail "the short rehearsal exited non-zero"; }
files_ok short
[ "$(steps_of short)" = "$(echo $order) " ] || fail "short: steps out of order: $(steps_of short)"
[ "$(status_of short preflight)" = passed ] || fail "short: preflight '$(status_of short preflight)'"
for s in gemm_tests matmul logging lazy transfer other_tests; do
  grep -q "^$s"$'\tskipped\t-\twould cross the deadline' "$tmp/short/steps.tsv" || fail "short: $s not skipped for the deadline"
done
grep -q '^Skipped (.*): gemm_tests, reference, clocks, matmul' "$tmp/short/report.md" || fail "short: the report does not list the skipped steps"

# 3. Steps that fail (every run's rank 0 throws: MINIGPU_INJECT_FAULT) are recorded and the
# check goes on to the next; it exits 1 with its report written.
MINIGPU_INJECT_FAULT=0:run check failing 600 --only matmul,lazy
rc=$?
[ "$rc" -eq 1 ] || fail "failing steps: exit $rc, expected 1"
files_ok failing
for s in matmul lazy; do
  grep -q "^$s"$'\tfailed\t[0-9]*\texit ' "$tmp/failing/steps.tsv" || fail "failing: $s not recorded as failed"
done
grep -q $'^logging\tskipped\t-\tnot asked for' "$tmp/failing/steps.tsv" || fail "failing: logging not left out by --only"

# 4. The rest, from the short run's steps.tsv.
check full 1800 --rerun "$tmp/short/steps.tsv" || { tail -n 30 "$tmp/full.log"; fail "the full rehearsal exited non-zero"; }
files_ok full
[ "$(steps_of full)" = "$(echo $order) " ] || fail "steps out of order: $(steps_of full)"
for s in preflight gemm_tests matmul matmul_low_precision logging lazy shared_transfer_gpu shared_matmul_strong_scaling_gpu \
  shared_multi_gpu_concurrency_gpu transfer multi_gpu_concurrency other_tests matmul_uniform; do
  [ "$(status_of full "$s")" = passed ] || fail "full: $s is '$(status_of full "$s")', not passed"
done
for s in reference clocks; do
  grep -q "^$s"$'\tskipped\t-\tno cuda_reference' "$tmp/full/steps.tsv" || fail "$s not skipped for its reason"
done
grep -q $'^torch\tskipped\t-\t.*torch that sees CUDA' "$tmp/full/steps.tsv" || fail "torch not skipped for its reason"
grep -q '^| preflight | passed |' "$tmp/full/report.md" || fail "the report has no steps table"
# data: uniform's run: n = 16, 64 in float32 and float64, tiled and vendor, all verified.
grep -q '^| matmul_uniform_gpu | 8 | 8 |' "$tmp/full/report.md" || fail "the report lacks matmul_uniform_gpu's 8 verified cases"
mkdir -p "$tmp/full/x" && tar -C "$tmp/full/x" -xzf "$tmp/full/all.tar.gz"
runs="$(ls "$tmp"/full/x/all/{runs,shared,uniform}/*/run.json 2>/dev/null | wc -l)"
[ "$runs" -eq 10 ] || fail "full: $runs run directories, expected 6 on every GPU, 3 on one shared GPU and 1 on uniform data"
/usr/bin/python3 - "$tmp/full/x/all" <<'PY' || status=1
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/*/*/run.json"):
    record = json.load(open(path))
    rows = record["results"]
    if record["status"] != "complete" or not rows or not all(r["verified"] for r in rows):
        sys.exit(f"FAIL: {path}: {record['status']}, {sum(r['verified'] for r in rows)}/{len(rows)} verified")
PY
# One rank gets every core, as scripts/run.sh lays ranks out (plain mpirun -np 1 binds it to one).
cores="$(lscpu -p=CORE 2>/dev/null | grep -v '^#' | sort -u | wc -l)"
if [ "$cores" -ge 2 ]; then
  grep -Eq "rank 0 on .*cores 0-$((cores - 1)), $cores threads" "$tmp/full/x/all/matmul.log" ||
    fail "one rank does not get the $cores cores: $(grep "rank 0 on" "$tmp/full/x/all/matmul.log" | head -n 1)"
fi

[ "$status" -eq 0 ] && echo "ok: packed, full rehearsal ($(awk -F'\t' 'NR>1 && $2=="passed"' "$tmp/full/steps.tsv" | wc -l) steps passed), short deadline reported its skips"
exit "$status"
