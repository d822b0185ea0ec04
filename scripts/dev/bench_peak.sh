#!/usr/bin/env bash
# miniGPU's measured FMA peak (`minigpu ceilings`: host_fma_f32/f64 on every core, and _1core)
# against likwid-bench's peakflops_*_fma on the same threads, in one sitting. Each figure is the
# best of 3 runs of each; bar: 0.95 <= miniGPU / likwid <= 1.05 (above it, miniGPU counts flops
# it did not do: a compiler once dropped a chain it proved constant). Exits 1 when a ratio misses
# it, 77 when likwid-bench is not installed (apt-get install likwid; scripts/dev/bench.sh does).
# Usage: scripts/dev/bench_peak.sh MINIGPU [OUT_DIR]
set -euo pipefail
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ] || [ $# -lt 1 ]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
minigpu="$1"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
command -v likwid-bench >/dev/null || { echo "likwid-bench is not installed: skipped"; exit 77; }
if grep -qw avx512f /proc/cpuinfo; then isa=avx512; elif grep -qw fma /proc/cpuinfo; then isa=avx; else isa=""; fi
[ -n "$isa" ] || { echo "no FMA instructions on this CPU: nothing to compare"; exit 77; }
cores="$(nproc)"

best_likwid() {  # best_likwid TEST THREADS: best MFlops/s of 3 runs, as GFLOP/s
  local best=0 v
  for _ in 1 2 3; do
    v="$(likwid-bench -t "$1" -W "N:24kB:$2" 2>&1 | awk '/^MFlops\/s:/ { print $2 / 1000 }')"
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
    theirs="$(best_likwid "$test_name" "$threads")"
    verdict="$(awk -v o="$ours" -v t="$theirs" 'BEGIN { r = t > 0 ? o / t : 0; printf "%.3f %s", r, (r >= 0.95 && r <= 1.05 ? "PASS" : "FAIL") }')"
    printf '%-34s %8s %10s %10s %7s %9s  %s\n' "FMA peak $dtype / $test_name" "$threads" "$ours" "$theirs" \
      "${verdict% *}" "0.95-1.05" "${verdict#* }"
    [ "${verdict#* }" = PASS ] || status=1
  done
done
exit "$status"
