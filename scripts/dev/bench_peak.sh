#!/usr/bin/env bash
# miniGPU's measured FMA peak (`minigpu ceilings`: host_fma_f32/f64 on every core, and _1core)
# against likwid-bench's peakflops_*_fma on the same threads, in one sitting. Each figure is the
# best of 5 rounds, each round running miniGPU and then likwid-bench, so that both sides see the
# same moments of a shared machine (this VM's memory bandwidth swung 18-33 GB/s on one thread
# between runs a few seconds apart); bar: miniGPU / likwid >= 0.95, and miniGPU's figure within
# what the core's clock allows (2 FMA units x 2 flops x lanes x the fastest clock measured in the
# rounds, x threads): above it, miniGPU counts flops it did not do (a compiler once dropped a chain
# it proved constant). Exits 1 when a row misses it, 77 when likwid-bench is not installed
# (apt-get install likwid; bench.sh does).
# Then the triad against likwid-bench's stream kernels in paired samples (bar >= 0.95; above
# 1.05 the row is ABOVE, not met), and native GEMM's share of the peak measured in the same run,
# best of 5 runs as the peaks are best of theirs (OpenBLAS's beside it): n >= 1024 bar >= 85 %,
# n = 256 bar >= 80 %; the same with the clock paired (peak_paired.py: both called in turn in one
# minigpu_bench round); and with more cores, the threaded GEMM against 1-thread processes.
# Usage: scripts/dev/bench_peak.sh MINIGPU [OUT_DIR]
set -euo pipefail
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ] || [ $# -lt 1 ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
minigpu="$1"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
command -v likwid-bench >/dev/null || { echo "likwid-bench is not installed: skipped"; exit 77; }
if grep -qw avx512f /proc/cpuinfo; then isa=avx512; elif grep -qw fma /proc/cpuinfo; then isa=avx; else isa=""; fi
[ -n "$isa" ] || { echo "no FMA instructions on this CPU: nothing to compare"; exit 77; }
cores="$(nproc)"
# likwid-bench's triads with streaming stores, as miniGPU's, at every vector width this CPU has:
# the reference at its best, as OpenBLAS is (blas_at_best.sh). On this Zen 5 VM, whose 512-bit
# operations issue as two 256-bit halves, the 512-bit one read 39-57 GB/s on 2 threads where the
# 256-bit one read 49-64 in the same minutes, less in each of six sittings (2026-11-28); the
# ordinary-store kernels (stream_*) read 17-28 and never won.
triad_tests="stream_mem_avx stream_mem_sse"
[ "$isa" = avx512 ] && triad_tests="stream_mem_avx512 $triad_tests"

# Both sides' arrays on transparent huge pages: miniGPU's triad asks for them (madvise, as its
# memcpy ceiling does), and likwid-bench's get them from a 15-line preload built here, which
# madvises each buffer likwid-bench's allocator takes from posix_memalign before its threads
# first touch it. Where THP is "madvise", as on these VMs, neither side gets them otherwise: on
# 4 KiB pages miniGPU's triad read 35.6 GB/s on 2 threads and on 2 MiB ones 40.6 (means of 10
# interleaved runs, 2026-11-28). glibc's own switch (GLIBC_TUNABLES=glibc.malloc.hugetlb=1)
# reaches malloc, not posix_memalign: likwid-bench's 805 MB held 0 kB of AnonHugePages under it,
# and 778,240 kB under the preload; its triad's best of 5 went from 24.6 to 25.5 GB/s on 1
# thread and from 30.7 to 33.0 on 2 (Zen 3 VM, 2026-11-29).
cat >"$out/thp_preload.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <sys/mman.h>
int posix_memalign(void **p, size_t align, size_t n) {
  static int (*real)(void **, size_t, size_t);
  if (!real) real = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
  const int rc = real(p, align, n);
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (rc == 0 && n >= 2 * huge) {  /* the whole 2 MiB pages inside the buffer */
    const uintptr_t s = ((uintptr_t)*p + huge - 1) & ~(huge - 1), e = ((uintptr_t)*p + n) & ~(huge - 1);
    if (e > s) madvise((void *)s, e - s, MADV_HUGEPAGE);
  }
  return rc;
}
C
preload=""
"${CC:-cc}" -O2 -shared -fPIC "$out/thp_preload.c" -o "$out/thp_preload.so" -ldl 2>"$out/thp_preload.txt" &&
  preload="$out/thp_preload.so"
[ -n "$preload" ] || echo "warning: the huge-page preload did not build ($out/thp_preload.txt): likwid-bench's arrays on 4 KiB pages"
likwid_once() {  # likwid_once TEST THREADS WORKING_SET FIGURE [ITERATIONS]: FIGURE (MFlops/s, MByte/s) / 1000
  LD_PRELOAD="$preload" likwid-bench -t "$1" ${5:+-i "$5"} -W "N:$3:$2" 2>&1 |
    awk -v f="$4:" '$1 == f { print $2 / 1000 }'
}
best_likwid() {  # best_likwid TEST THREADS WORKING_SET: best of the rounds' figures
  cat "$out"/likwid_*_"$1_$2_$3.txt" 2>/dev/null | awk 'BEGIN { b = 0 } $1 > b { b = $1 } END { print b }'
}
best_minigpu() {  # best_minigpu NAME: best figure of the rounds' fresh `minigpu ceilings` runs
  cat "$out"/ceilings_*.txt | awk -v n="$1" 'BEGIN { b = 0 } $1 == n && $2 > b { b = $2 } END { print b }'
}
# The core's clock, from a chain of dependent 64-bit multiplies (3 cycles each on every x86 core
# since 2006): /proc/cpuinfo gives the nominal figure, and this VM's cores ran 2.34-2.83 GHz
# within a minute (2026-11-28). An add chain will not do: newer cores fold add-immediates at
# rename, and one read "9.6 GHz". Its windows are as short as the peak's passes (2^22 steps of 12
# FMAs, 2 a cycle: 25 M cycles, 7 ms), and the best of 60 is kept, as the peak keeps its best
# pass: 0.17-s windows averaged away the clock's short highs, and the Zen 5 VM's best float32
# pass ran at 3.73 GHz's rate against a "fastest" clock of 3.638 GHz (2026-12-02).
cat >"$out/clock_ghz.c" <<'C'
#include <stdio.h>
#include <time.h>
int main(void) {
  const long steps = 1L << 23;             /* multiplies a window */
  const double cycles = 3.0 * (double)steps; /* 7 ms at 3.6 GHz, one peak pass's length */
  double best = 0;
  for (int window = 0; window < 60; ++window) {
    long n = steps, x = 3;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    __asm__ volatile("1: imul %1, %1\n imul %1, %1\n imul %1, %1\n imul %1, %1\n sub $4, %0\n jnz 1b"
                     : "+r"(n), "+r"(x));
    clock_gettime(CLOCK_MONOTONIC, &b);
    const double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    const double ghz = cycles / s / 1e9;
    if (ghz > best) best = ghz;
  }
  printf("%.3f\n", best);
  return 0;
}
C
"${CC:-cc}" -O2 "$out/clock_ghz.c" -o "$out/clock_ghz" 2>"$out/clock_ghz.txt" || true
isa_test() {  # isa_test f32|f64: likwid-bench's FMA peak kernel
  if [ "$1" = f32 ]; then echo "peakflops_sp_${isa}_fma"; else echo "peakflops_${isa}_fma"; fi
}
for run in 1 2 3 4 5; do
  MINIGPU_CEILINGS_DIR="$out/cache_$run" "$minigpu" ceilings >"$out/ceilings_$run.txt" 2>&1
  [ -x "$out/clock_ghz" ] && "$out/clock_ghz" >"$out/clock_$run.txt"
  if [ "$run" = 1 ]; then  # the triad's working set: 3 arrays of host_triad's size
    triad_bytes="$(awk '$1 == "host_triad" { print }' "$out/ceilings_1.txt" | grep -o '3 x [0-9.]* [KMG]iB' | head -n 1)"
    per_array_mib="$(echo "$triad_bytes" | awk '{ v = $3; u = $4; print (u == "GiB" ? v * 1024 : u == "KiB" ? v / 1024 : v) }')"
    working_set="$(awk -v m="${per_array_mib:-128}" 'BEGIN { printf "%dMB", 3 * m * 1.048576 }')"
    triad_passes="$(awk '$1 == "host_triad"' "$out/ceilings_1.txt" | grep -o 'best of [0-9]*' | grep -o '[0-9]*$' | head -n 1 || true)"
    triad_passes="${triad_passes:-7}"
  fi
  for threads in 1 "$cores"; do
    for dtype in f32 f64; do
      likwid_once "$(isa_test "$dtype")" "$threads" 24kB MFlops/s >"$out/likwid_${run}_$(isa_test "$dtype")_${threads}_24kB.txt"
    done
  done
done
status=0
clock="$(cat "$out"/clock_*.txt 2>/dev/null | awk 'BEGIN { b = 0 } $1 > b { b = $1 } END { print b }')"
echo "core clock: fastest of the rounds $clock GHz (a chain of dependent multiplies; 0: not measured)"
printf '%-34s %8s %10s %10s %7s %9s  %s\n' "benchmark" threads miniGPU likwid ratio bar verdict
for dtype in f32 f64; do
  test_name="$(isa_test "$dtype")"
  bytes=8; [ "$dtype" = f32 ] && bytes=4
  width=32; [ "$isa" = avx512 ] && width=64
  lanes=$(( width / bytes ))
  for threads in 1 "$cores"; do
    name="host_fma_$dtype"
    [ "$threads" = 1 ] && [ "$cores" -gt 1 ] && name="${name}_1core"
    ours="$(best_minigpu "$name")"
    theirs="$(best_likwid "$test_name" "$threads" 24kB)"
    # What the clock allows: 2 FMA units x 2 flops x lanes per cycle, every thread at the fastest clock.
    bound="$(awk -v f="$clock" -v l="$lanes" -v t="$threads" 'BEGIN { printf "%.1f", 4 * l * f * t }')"
    verdict="$(awk -v o="$ours" -v t="$theirs" -v b="$bound" 'BEGIN { r = t > 0 ? o / t : 0;
      printf "%.3f %s", r, (r < 0.95 ? "FAIL" : r <= 1.05 ? "PASS" : o <= b ? "PASS" : "FAIL") }')"
    printf '%-34s %8s %10s %10s %7s %9s  %s\n' "FMA peak $dtype / $test_name" "$threads" "$ours" "$theirs" \
      "${verdict% *}" ">=0.95" "${verdict#* }"
    if awk -v r="${verdict% *}" 'BEGIN { exit !(r > 1.05) }'; then
      if [ "${verdict#* }" = PASS ]; then
        echo "    above likwid-bench by more than 5 %, within the clock's bound of $bound GFLOP/s: likwid-bench's kernel is not this machine's limit here"
      else
        excess="$(awk -v o="$ours" -v b="$bound" 'BEGIN { printf "%.1f", (b > 0 ? 100 * (o / b - 1) : 0) }')"
        echo "    above likwid-bench by more than 5 % and $excess % above the clock's bound of $bound GFLOP/s (4 x $lanes lanes x $clock GHz x $threads): miniGPU counts flops it did not do, the clock was not measured, or the cores ran faster during the peak's runs than in any of the clock's samples (taken between them)"
      fi
    fi
    [ "${verdict#* }" = PASS ] || status=1
  done
done
# The triad against likwid-bench's, the same 24 bytes counted per element: miniGPU's host_triad
# (streaming stores, 3 x host_stream_bytes; host_triad_1core on 1 thread) against likwid's
# streaming-store triads over the same working set; bar 0.95-1.05. The host's memory is the
# shared part of this VM: the same kernels read 52-94 GB/s on 2 threads from one round to the
# next, and the best of each side over 5 rounds set one spell against another (0.846,
# 2026-11-30); within one round of 21 likwid-bench passes, its best came from one spell the
# two miniGPU runs around it had missed (84.3 GB/s, where its other passes read 40-67). So the
# sides are paired: each sample is one `minigpu ceilings --only` and one run of each likwid-bench
# kernel, back to back (below: in turns). The same statistic on both sides: likwid-bench reports
# the mean of its iterations (64 by default), so miniGPU's side is the mean of its 7 passes,
# printed beside their best. Paired, miniGPU's best read 1.107 of likwid's mean on 1 thread
# (ABOVE), and a plain C triad with streaming stores read 2-17 % above its own mean at its best pass; single
# likwid-bench passes (-i 1) are no best either: its first pass read 32-44 GB/s where its mean of
# 64 read 45 (2026-12-01). The reference is likwid-bench at its best, the kernel with the
# highest median over the samples, and the row is the median of the samples' ratios against it,
# as the side-by-side row below is a median of rounds. A median above 1.05 passes nothing: the
# reference was then not this machine's limit in this sitting (with only the 512-bit kernel,
# likwid-bench read 40 GB/s on 2 threads where miniGPU's triad moved 66, 2026-11-28), so the
# row says ABOVE, with that reason, and the bench fails rather than count a figure past its
# bound as met.
# The samples of one thread count run together, after a discarded run at that count, and the
# sides take turns to go first. The first 2-thread run after 1-thread work met the slow state of
# this Zen 5 VM's memory every time: eight samples of 1-thread likwid-bench runs, then 2-thread
# ones, read 37-59 GB/s for whichever ran first and 46-100 for the runs after it (9 of 24 above
# 78; 2026-12-02). miniGPU had always gone first, so the row read 0.837-0.856 in five of seven
# sittings, while both run after 2-thread work were level (6 rounds: medians 58.5 against 57.2).
# In turns, the next sitting read 1.016, miniGPU in the fast state 4 times of 9 (1 of 9 before).
triad_samples=9
triad_minigpu() {  # triad_minigpu THREADS: one `ceilings --only` run's best and mean
  local name=host_triad
  [ "$1" = 1 ] && [ "$cores" -gt 1 ] && name=host_triad_1core
  "$minigpu" ceilings --only "$name" 2>&1 | awk -v n="$name" '$1 == n {
    mean = $0; sub(/.*\(mean /, "", mean); sub(/ GB\/s\).*/, "", mean); print $2, mean }' \
    >>"$out/triad_${1}_minigpu.txt"
}
triad_likwid() {  # triad_likwid THREADS: one run of each likwid-bench kernel
  for test in $triad_tests; do
    likwid_once "$test" "$1" "$working_set" MByte/s >>"$out/triad_${1}_${test}.txt"
  done
}
for threads in 1 "$cores"; do
  likwid_once "${triad_tests%% *}" "$threads" "$working_set" MByte/s >/dev/null  # the discarded run
  for sample in $(seq "$triad_samples"); do
    if [ $((sample % 2)) = 1 ]; then
      triad_minigpu "$threads"
      triad_likwid "$threads"
    else
      triad_likwid "$threads"
      triad_minigpu "$threads"
    fi
  done
done
python3 - "$out" "$working_set" 1 "$cores" "$triad_tests" <<'PY' || status=1
import statistics, sys
out, working_set, tests = sys.argv[1], sys.argv[2], sys.argv[5].split()
def column(path, field=0):  # one figure a sample, 0 where a run printed none
    try:
        rows = [line.split() for line in open(path).read().split("\n")[:-1]]
        return [float(r[field]) if len(r) > field else 0.0 for r in rows]
    except (OSError, ValueError):
        return []
ok = True
for threads in dict.fromkeys(sys.argv[3:5]):  # 1 and every core; once on one core
    ours, best = column(f"{out}/triad_{threads}_minigpu.txt", 1), column(f"{out}/triad_{threads}_minigpu.txt")
    each = {t: column(f"{out}/triad_{threads}_{t}.txt") for t in tests}
    each = {t: v for t, v in each.items() if len(v) == len(ours) and any(v)}
    ref = max(each, key=lambda t: statistics.median(each[t])) if each and ours else ""
    pairs = [(o, r) for o, r in zip(ours, each.get(ref, [])) if o > 0 and r > 0]
    if not pairs:
        print(f"{'triad / likwid-bench stream_mem':34} {threads:>8}  no sample measured both sides  FAIL")
        ok = False
        continue
    ratios = [o / r for o, r in pairs]
    ratio = statistics.median(ratios)
    verdict = "ABOVE" if ratio > 1.05 else "PASS" if ratio >= 0.95 else "FAIL"
    ok = ok and verdict == "PASS"
    medians = ", ".join(f"{t} {statistics.median(v):.1f}" for t, v in each.items())
    print(f"{'triad / likwid-bench stream_mem':34} {threads:>8} {statistics.median(o for o, _ in pairs):10.1f} "
          f"{statistics.median(r for _, r in pairs):10.1f} {ratio:7.3f} {'0.95-1.05':>9}  {verdict}   "
          f"(GB/s, means of each run's passes, medians of {len(pairs)} paired samples, ratios "
          f"{min(ratios):.3f}-{max(ratios):.3f}, against {ref}; likwid-bench's kernels: {medians}; "
          f"miniGPU's best passes {statistics.median(best):.1f}; over {working_set})")
    if verdict == "ABOVE":
        print("    ABOVE: miniGPU's triad beat likwid-bench's best kernel by more than 5 % in the median "
              "sample: likwid's figure is not this machine's limit in this sitting (its threads' "
              "placement, or the VM), so the row proves nothing")
sys.exit(0 if ok else 1)
PY
# Native GEMM (`tiled`) as a share of that peak, from its rows' pct_of_peak (issue 44):
# n >= 1024 bar >= 85 % (goal 90 %), n = 256 bar >= 80 %, float32 and float64, 1 and every core.
# Each run measures its own peak (a fresh ceilings cache) seconds before its products, so every
# share is a GEMM and a peak from one spell of the machine: on the Xeon VM the cores' clock moved
# between 2.1 and 2.8 GHz in spells minutes long (2026-11-28), and GEMMs set against one cached
# peak read 59-99 % of it from run to run. Each row is the best reliable one of 5 runs, as each
# peak above is its best of 5 rounds. A run whose ceilings were doubtful (run.json's
# ceilings_doubt) lends no row a reliable share: on 2026-11-30 the host left this VM one core's
# worth for a whole run, its "2 threads" FMA peak read 1.0x one thread's, and its GEMM rows read
# 80-100 % of that one-core peak, reliable, the sitting's best. OpenBLAS's (`vendor`) share of the
# same peak is printed beside it: the peer at its best on this machine, the reference for what the
# bar asks.
cat >"$out/gemm_peak.yaml" <<'YAML'
run: {name: gemm_peak, warmups: 2, repetitions: 10}
experiments:
  - {name: matmul, sizes: [256, 1024, 2048], devices: [cpu], dtypes: [float32, float64], variants: [tiled, vendor]}
YAML
for threads in 1 "$cores"; do
  for run in 1 2 3 4 5; do
    rm -rf "$out/gemm_peak_${threads}_$run" "$out/cache_gemm_${threads}_$run"  # this run's records and peak only
    env -u MINIGPU_EMULATE_GPUS OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" \
      MINIGPU_CEILINGS_DIR="$out/cache_gemm_${threads}_$run" "$minigpu" run "$out/gemm_peak.yaml" \
      --output-dir "$out/gemm_peak_${threads}_$run" >"$out/gemm_peak_${threads}_$run.txt" 2>&1 || status=1
  done
  python3 - "$threads" "$out"/gemm_peak_"$threads"_*/*/results.csv <<'PY' || status=1
import csv, json, os, sys
best = {}  # (variant, dtype, n) -> the row with the highest share, reliable rows before unreliable ones
for path in sys.argv[2:]:
    doubt = json.load(open(os.path.join(os.path.dirname(path), "run.json"))).get("ceilings_doubt", "")
    for r in csv.DictReader(open(path)):
        key, share = (r["variant"], r["dtype"], int(r["n"])), float(r["pct_of_peak"] or 0)
        if doubt and r["reliable"] == "true":
            r["reliable"], r["unreliable_because"] = "false", "its run's peak was doubtful: " + doubt
        rank = (r["reliable"] == "true", share)
        if key not in best or rank > best[key][0]:
            best[key] = (rank, r)
ok = any(key[0] == "tiled" for key in best)
for (variant, dtype, n), ((reliable, share), r) in sorted(best.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
    if variant != "tiled":
        continue
    bar = 85 if n >= 1024 else 80
    verdict = "PASS" if reliable and share >= bar else "FAIL"
    ok = ok and verdict == "PASS"
    peer = best.get(("vendor", dtype, n))
    beside = f"   OpenBLAS {peer[0][1]:5.1f} %{'' if peer[0][0] else ' (unreliable)'}" if peer else ""
    print(f"{'native GEMM / FMA peak':34} {sys.argv[1]:>8} {dtype:>10} n={n:<5} {share:6.1f} % "
          f"bar >= {bar} %  {verdict}{'' if reliable else ' (unreliable: ' + r['unreliable_because'] + ')'}{beside}")
sys.exit(0 if ok else 1)
PY
done
# The same shares with the clock paired (scripts/dev/peak_paired.py): native GEMM and the FMA peak
# in turn in minigpu_bench's peak_round rows, the upper quartile of 15 repetitions' own shares
# (their median beside, "contended" where the quartiles lie far apart); OpenBLAS's and the peak's
# own rows beside, for OpenBLAS's share. Skipped with a note where the bench is not
# built (it needs Google Benchmark).
bench_bin="$(dirname "$minigpu")/../tests/minigpu_bench"
if [ -x "$bench_bin" ]; then
  paired=()
  paired_rows='^(peak_round/float(32|64)/n:(1024|2048)/native|gemm/float(32|64)/n:(1024|2048)/vendor|peak/float(32|64)/fma)/'
  for threads in 1 "$cores"; do
    env -u MINIGPU_EMULATE_GPUS OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" "$bench_bin" \
      --kokkos-num-threads="$threads" --benchmark_repetitions=15 --benchmark_enable_random_interleaving=true \
      --benchmark_min_time=0.05 --benchmark_filter="$paired_rows" \
      --benchmark_format=json --benchmark_out="$out/paired_$threads.json" >"$out/paired_$threads.txt" 2>&1 || status=1
    paired+=("$threads=$out/paired_$threads.json")
  done
  python3 "$(dirname "$0")/peak_paired.py" "${paired[@]}" || status=1
else
  echo "native GEMM / FMA peak, paired: skipped, $bench_bin is not built (Google Benchmark: libbenchmark-dev)"
fi
# What the threading costs, apart from what the cores lose by running at once: native GEMM on
# every core against the same product as one 1-thread process per core, side by side (each bound
# to its core, started together, the sum of their rates). Shared caches, memory and the host slow
# both sides alike, so the ratio is the threaded kernel's own loss; bar 0.95-1.05 (the median of
# 5 rounds), OpenBLAS's beside. On the Zen 3 VM (2026-11-29) 2-thread float64 n = 2048 read
# 57-60 GFLOP/s and two 1-thread processes 56-62 in sum, each 28-32 where it ran 31-34 alone: the
# gap to twice the core's peak was the machine's, not the kernel's.
# Each side's rate in a round is its fastest repetition's, as the rows above keep their best: a
# spell of the VM within a round's 10 repetitions (0.6 s threaded) moved their medians, not the
# kernel. Xeon VM, 2026-12-06 15:57, float32, three rounds from medians 0.782 / 0.904 / 0.999
# (median 0.904, FAIL), where OpenBLAS's read 0.733 / 0.975 / 0.999 and round 2's threaded
# repetitions took 53.8-69.3 ms (cv 9 %); from each side's fastest 0.793 / 0.995 / 0.999. A spell
# over a whole run (round 1, both kernels) moves the fastest too: hence 5 rounds, not 3. Five
# rounds run alone at 16:12 (OpenBLAS on its default kernels beside) read float32 0.960-1.176
# from the fastest (median 1.011) and 0.931-1.080 from medians (0.969), float64 0.767-1.076
# (1.037) and 0.816-1.410 (0.995): no steadier on either count in that spell; at 16:17 (with
# SkylakeX's) 0.979-1.002 and 0.992-1.022 from the fastest. The fastest is what the rows above
# and STREAM keep. A sum of two processes' fastest leans to the processes (each met its own best
# moment), never to the threaded kernel.
if [ "$cores" -gt 1 ]; then
  sed 's/sizes: \[256, 1024, 2048\]/sizes: [2048]/' "$out/gemm_peak.yaml" >"$out/side_by_side.yaml"
  side_rounds=5
  for run in $(seq "$side_rounds"); do
    rm -rf "$out/threaded_$run" "$out"/side_"${run}"_*  # an OUT_DIR used before: this run's records only
    env -u MINIGPU_EMULATE_GPUS OMP_NUM_THREADS="$cores" OPENBLAS_NUM_THREADS="$cores" \
      MINIGPU_CEILINGS_DIR="$out/cache_gemm_${cores}_1" "$minigpu" run "$out/side_by_side.yaml" \
      --output-dir "$out/threaded_$run" >"$out/threaded_$run.txt" 2>&1 || status=1
    pids=()
    for ((core = 0; core < cores; core++)); do
      env -u MINIGPU_EMULATE_GPUS OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MINIGPU_CEILINGS_DIR="$out/cache_gemm_1_1" \
        taskset -c "$core" "$minigpu" run "$out/side_by_side.yaml" --output-dir "$out/side_${run}_$core" \
        >"$out/side_${run}_$core.txt" 2>&1 &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  done
  python3 - "$cores" "$out" "$side_rounds" <<'PY' || status=1
import csv, glob, statistics, sys
cores, out, rounds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def rates(path):  # GFLOP/s of each row's fastest repetition
    return {(r["variant"], r["dtype"]): float(r["work_flops"]) / float(r["min_s"]) / 1e9
            for r in csv.DictReader(open(glob.glob(path)[0]))}
# Each round's ratio from runs seconds apart, and the median of the rounds: bests taken from
# different rounds would set one spell of this VM against another.
ratios = {}  # (variant, dtype) -> [threaded / sum of the processes, a round each]
for run in range(1, rounds + 1):
    threaded = rates(f"{out}/threaded_{run}/*/results.csv")
    each = [rates(f"{out}/side_{run}_{core}/*/results.csv") for core in range(cores)]
    for key, v in threaded.items():
        ratios.setdefault(key, []).append(v / sum(e[key] for e in each))
ok = True
for dtype in ("float32", "float64"):
    mine, peer = ratios[("tiled", dtype)], ratios[("vendor", dtype)]
    ratio = statistics.median(mine)
    # Above 1.05 the processes' sum was not what the cores give together in this sitting (the
    # kernel saves one packing of B a core, not a tenth of its time): the row proves nothing.
    verdict = "ABOVE" if ratio > 1.05 else "PASS" if ratio >= 0.95 else "FAIL"
    ok = ok and verdict == "PASS"
    print(f"{'native GEMM threaded / side by side':34} {cores:>8} {dtype:>10} n=2048  {ratio:.3f} "
          f"(rounds {min(mine):.3f}-{max(mine):.3f})  bar 0.95-1.05  {verdict}   OpenBLAS {statistics.median(peer):.3f}")
    if verdict == "ABOVE":
        print("    ABOVE: the threaded GEMM beat its cores run side by side by more than 5 %: the machine moved between the runs, so the row proves nothing")
sys.exit(0 if ok else 1)
PY
fi
exit "$status"
