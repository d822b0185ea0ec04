#!/usr/bin/env bash
# miniGPU's measured FMA peak (`minigpu ceilings`: host_fma_f32/f64 on every core, and _1core)
# against likwid-bench's peakflops_*_fma on the same threads, in one sitting. Each figure is the
# best of 3 runs of each; bar: 0.95 <= miniGPU / likwid <= 1.05 (above it, miniGPU counts flops
# it did not do: a compiler once dropped a chain it proved constant). Exits 1 when a ratio misses
# it, 77 when likwid-bench is not installed (apt-get install likwid; scripts/dev/bench.sh does).
# Then the triad against likwid-bench's stream kernels (bar >= 0.95; above 1.05 the row is ABOVE,
# not met), and native GEMM's share of that peak: n >= 1024 bar >= 85 %, n = 256 bar >= 80 %.
# Usage: scripts/dev/bench_peak.sh MINIGPU [OUT_DIR]
set -euo pipefail
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ] || [ $# -lt 1 ]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
minigpu="$1"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
command -v likwid-bench >/dev/null || { echo "likwid-bench is not installed: skipped"; exit 77; }
if grep -qw avx512f /proc/cpuinfo; then isa=avx512; elif grep -qw fma /proc/cpuinfo; then isa=avx; else isa=""; fi
[ -n "$isa" ] || { echo "no FMA instructions on this CPU: nothing to compare"; exit 77; }
cores="$(nproc)"

best_likwid() {  # best_likwid TEST THREADS WORKING_SET FIGURE: best FIGURE (MFlops/s, MByte/s) of 3 runs, / 1000
  local best=0 v
  for _ in 1 2 3; do
    v="$(likwid-bench -t "$1" -W "N:$3:$2" 2>&1 | awk -v f="$4:" '$1 == f { print $2 / 1000 }')"
    best="$(awk -v a="$best" -v b="${v:-0}" 'BEGIN { print (b > a ? b : a) }')"
  done
  echo "$best"
}
best_minigpu() {  # best_minigpu NAME: best figure of 3 fresh `minigpu ceilings` runs
  local best=0 v
  for run in 1 2 3; do
    v="$(awk -v n="$1" '$1 == n { print $2 }' "$out/ceilings_$run.txt")"
    best="$(awk -v a="$best" -v b="${v:-0}" 'BEGIN { print (b > a ? b : a) }')"
  done
  echo "$best"
}
for run in 1 2 3; do
  MINIGPU_CEILINGS_DIR="$out/cache_$run" "$minigpu" ceilings >"$out/ceilings_$run.txt" 2>&1
done
status=0
printf '%-34s %8s %10s %10s %7s %9s  %s\n' "benchmark" threads miniGPU likwid ratio bar verdict
for dtype in f32 f64; do
  test_name="peakflops_${isa}_fma"
  [ "$dtype" = f32 ] && test_name="peakflops_sp_${isa}_fma"
  for threads in 1 "$cores"; do
    name="host_fma_$dtype"
    [ "$threads" = 1 ] && [ "$cores" -gt 1 ] && name="${name}_1core"
    ours="$(best_minigpu "$name")"
    theirs="$(best_likwid "$test_name" "$threads" 24kB MFlops/s)"
    verdict="$(awk -v o="$ours" -v t="$theirs" 'BEGIN { r = t > 0 ? o / t : 0; printf "%.3f %s", r, (r >= 0.95 && r <= 1.05 ? "PASS" : "FAIL") }')"
    printf '%-34s %8s %10s %10s %7s %9s  %s\n' "FMA peak $dtype / $test_name" "$threads" "$ours" "$theirs" \
      "${verdict% *}" "0.95-1.05" "${verdict#* }"
    [ "${verdict#* }" = PASS ] || status=1
  done
done
# The triad against likwid-bench's, the same 24 bytes counted per element: miniGPU's host_triad
# (streaming stores, 3 x host_stream_bytes) against the better of stream_mem_* (streaming stores,
# as ours) and stream_* (ordinary stores) over the same working set; bar >= 0.95. A ratio above
# 1.05 passes nothing: the reference is then not this machine's limit in this sitting (likwid-bench
# read 40 GB/s on 2 threads where miniGPU's triad moved 66, 2026-11-28), so the row says ABOVE,
# with that reason, and the bench fails rather than count a figure past its bound as met.
triad_bytes="$(awk '$1 == "host_triad" { print }' "$out/ceilings_1.txt" | grep -o '3 x [0-9.]* [KMG]iB' | head -n 1)"
per_array_mib="$(echo "$triad_bytes" | awk '{ v = $3; u = $4; print (u == "GiB" ? v * 1024 : u == "KiB" ? v / 1024 : v) }')"
working_set="$(awk -v m="${per_array_mib:-128}" 'BEGIN { printf "%dMB", 3 * m * 1.048576 }')"
for threads in 1 "$cores"; do
  name=host_triad
  [ "$threads" = 1 ] && [ "$cores" -gt 1 ] && name=host_triad_1core
  ours="$(best_minigpu "$name")"
  nt="$(best_likwid "stream_mem_$isa" "$threads" "$working_set" MByte/s)"
  plain="$(best_likwid "stream_$isa" "$threads" "$working_set" MByte/s)"
  verdict="$(awk -v o="$ours" -v a="$nt" -v b="$plain" 'BEGIN { t = a > b ? a : b; r = t > 0 ? o / t : 0;
    printf "%.3f %s", r, (r > 1.05 ? "ABOVE" : r >= 0.95 ? "PASS" : "FAIL") }')"
  printf '%-34s %8s %10s %10s %7s %9s  %s   (likwid stream_mem %s, stream %s GB/s over %s)\n' "triad / likwid-bench stream" \
    "$threads" "$ours" "$(awk -v a="$nt" -v b="$plain" 'BEGIN { print (a > b ? a : b) }')" "${verdict% *}" "0.95-1.05" \
    "${verdict#* }" "$nt" "$plain" "$working_set"
  [ "${verdict#* }" = ABOVE ] &&
    echo "    ABOVE: miniGPU's triad beat likwid-bench's by more than 5 %: likwid's figure is not this machine's limit in this sitting (its threads' placement, or the VM), so the row proves nothing"
  [ "${verdict#* }" = PASS ] || status=1
done
# Native GEMM (`tiled`) as a share of that peak, from its rows' pct_of_peak (issue 44):
# n >= 1024 bar >= 85 % (goal 90 %), n = 256 bar >= 80 %, float32 and float64, 1 and every core.
cat >"$out/gemm_peak.yaml" <<'YAML'
run: {name: gemm_peak, warmups: 2, repetitions: 10}
experiments:
  - {name: matmul, sizes: [256, 1024, 2048], devices: [cpu], dtypes: [float32, float64], variants: [tiled]}
YAML
for threads in 1 "$cores"; do
  env -u MINIGPU_EMULATE_GPUS OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" \
    MINIGPU_CEILINGS_DIR="$out/cache_gemm_$threads" "$minigpu" run "$out/gemm_peak.yaml" \
    --output-dir "$out/gemm_peak_$threads" >"$out/gemm_peak_$threads.txt" 2>&1 || status=1
  python3 - "$out"/gemm_peak_"$threads"/*/results.csv "$threads" <<'PY' || status=1
import csv, sys
ok = True
for r in csv.DictReader(open(sys.argv[1])):
    n, share = int(r["n"]), float(r["pct_of_peak"] or 0)
    bar = 85 if n >= 1024 else 80
    verdict = "PASS" if share >= bar else "FAIL"
    ok = ok and verdict == "PASS"
    print(f"{'native GEMM / FMA peak':34} {sys.argv[2]:>8} {r['dtype']:>10} n={n:<5} {share:6.1f} % "
          f"bar >= {bar} %  {verdict}{'' if r['reliable'] == 'true' else ' (unreliable: ' + r['unreliable_because'] + ')'}")
sys.exit(0 if ok else 1)
PY
done
exit "$status"
