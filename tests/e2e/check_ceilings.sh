#!/usr/bin/env bash
# `minigpu ceilings` measures host memcpy, triad, the FMA peak and BLAS gemm peaks (bfloat16's too where the CPU
# and the build have it), caches them per host and build, and `--cached` reuses that file; a
# damaged cache file is measured again and replaced. `--only` measures the named figures alone.
# Figures are checked for sanity against each other, not against fixed numbers (machines differ).
# A measurement whose figures contradict each other (two threads' FMA peak 1.19x one thread's on a
# Xeon VM whose second vCPU was busy elsewhere, 2026-11-28) is, rightly, not cached: it must say
# so and leave no file, and is measured again, up to 3 times; a machine that contradicts itself
# every time skips the rest (exit 77), since caching cannot then be tested.
# Usage: check_ceilings.sh MINIGPU
set -u
minigpu="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export MINIGPU_CEILINGS_DIR="$dir/cache"
fail() { echo "FAIL: $*"; exit 1; }
# measure OUT [ARGS]: `minigpu ceilings ARGS` into OUT, again while its figures contradict each other.
measure() {
  local out="$1" attempt
  shift
  for attempt in 1 2 3; do
    "$minigpu" ceilings "$@" > "$out" 2>&1 || { cat "$out"; fail "minigpu ceilings $* exited $?"; }
    grep -q "; not cached: its figures contradict each other" "$out" || return 0
    cat "$out"
    grep -q "^warning: these ceilings are doubtful: .*" "$out" || fail "not cached, and no warning saying why"
    [ "$out" != "$dir/first" ] || ! compgen -G "$MINIGPU_CEILINGS_DIR/ceilings-*.json" > /dev/null ||
      fail "figures that contradict each other were cached"
    echo "attempt $attempt: the figures contradicted each other (not cached, as they must not be)"
  done
  echo "SKIP: this machine's figures contradicted each other in 3 measurements: caching cannot be tested"
  exit 77
}

# `--only NAME,...` measures those figures alone, prints them and leaves the cache as it is
# (bench_peak.sh interleaves `--only host_triad` with likwid-bench's passes); a name that is no
# figure here is refused in one line naming it, exit 2.
"$minigpu" ceilings --only host_triad,host_fma_f64 > "$dir/only" 2>&1 || { cat "$dir/only"; fail "--only exited $?"; }
cat "$dir/only"
[ "$(grep -Ec '^  [a-z]' "$dir/only")" = 2 ] && grep -Eq '^  host_triad +[0-9]+\.[0-9] GB/s ' "$dir/only" &&
  grep -Eq '^  host_fma_f64 +[0-9]+\.[0-9] GFLOP/s ' "$dir/only" || fail "--only host_triad,host_fma_f64 did not print those two rows alone"
grep -q "^ceilings (measured .*; --only: not cached)" "$dir/only" || fail "--only's source line does not say it is not cached"
! compgen -G "$MINIGPU_CEILINGS_DIR/ceilings-*.json" > /dev/null || fail "--only wrote the cache"
# The triad prints the mean of its timings beside their best (bench_peak.sh sets the mean against
# likwid-bench's, a mean too): a mean above the best is no mean of those timings. Both are printed
# to 0.1 GB/s, so rounding cannot lift one over the other (the mean once printed to 3 significant
# figures read 8.21 beside a best of 8.2 in CI's sanitizer build, 2026-12-01).
awk '$1 == "host_triad" { m = $0; sub(/.*\(mean /, "", m); sub(/ GB\/s\).*/, "", m); exit !(m + 0 > 0 && m + 0 <= $2) }' \
  "$dir/only" || fail "host_triad's mean of its timings is missing or above their best"
"$minigpu" ceilings --only host_triad,no_such_ceiling > "$dir/only_bad" 2>&1
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l < "$dir/only_bad")" = 1 ] && grep -q "'no_such_ceiling'" "$dir/only_bad" ||
  { cat "$dir/only_bad"; fail "--only no_such_ceiling: exit $rc, not one line naming it and exit 2"; }

measure "$dir/first"
cat "$dir/first"
grep -q "^ceilings (measured .* by rank 0 alone; cached in $MINIGPU_CEILINGS_DIR/" "$dir/first" || fail "no measured-and-cached source line"
for name in host_memcpy host_triad host_fma_f32 host_fma_f64 blas_sgemm blas_dgemm native_sgemm native_dgemm host_sgemm host_dgemm; do
  grep -Eq "^  $name +[0-9]+\.[0-9] (GB/s|GFLOP/s) " "$dir/first" || fail "no $name row"
done
files=("$MINIGPU_CEILINGS_DIR"/ceilings-*.json)
[ "${#files[@]}" -eq 1 ] && [ -s "${files[0]}" ] || fail "expected one cache file, found: ${files[*]}"
value() { awk -v n="$1" '$1 == n { print $2 }' "$2"; }
# float32 gemm is never slower than float64 gemm by more than noise on any BLAS we know.
awk -v s="$(value blas_sgemm "$dir/first")" -v d="$(value blas_dgemm "$dir/first")" \
  'BEGIN { exit !(s > 0.8 * d && d > 0) }' || fail "sgemm $(value blas_sgemm "$dir/first") vs dgemm $(value blas_dgemm "$dir/first")"
# bfloat16's three rows where the CPU has AVX512_BF16 and minigpu links oneDNN (its vendor).
kinds="sgemm dgemm"
if grep -qw avx512_bf16 /proc/cpuinfo && ldd "$minigpu" | grep -q libdnnl; then
  kinds="$kinds sbgemm"
  for name in blas_sbgemm native_sbgemm host_sbgemm; do
    grep -Eq "^  $name +[0-9]+\.[0-9] GFLOP/s " "$dir/first" || fail "AVX512_BF16 and oneDNN, but no $name row"
  done
fi
# Each host GEMM is timed from in-cache to n = 1024 and kept at its fastest size (a small native
# product ran 106 % of a ceiling timed at n = 1024 alone).
for kind in $kinds; do
  for name in blas_$kind native_$kind; do
    grep -Eq "^  $name .*at n=64, 128, 256, 512, 1024, fastest at n=(64|128|256|512|1024) " "$dir/first" ||
      fail "$name is not its fastest of n = 64 ... 1024"
  done
done
# The host GEMM bound is the faster of the BLAS and miniGPU's own kernel, whichever that is.
for kind in $kinds; do
  awk -v h="$(value host_$kind "$dir/first")" -v b="$(value blas_$kind "$dir/first")" -v n="$(value native_$kind "$dir/first")" \
    'BEGIN { exit !(h == (b > n ? b : n)) }' || fail "host_$kind is not the faster of blas_$kind and native_$kind"
done

# A threaded host (the rank's threads in the triad's label) adds each figure's one-core share.
# (No order between the two is asserted: under ctest -j2 the other core may be busy.)
threads=$(awk '$1 == "host_triad" { for (i = 1; i < NF; ++i) if ($(i + 1) ~ /^threads?[,):]?$/) print $i }' "$dir/first" | head -n 1)
if [ "${threads:-1}" -gt 1 ]; then
  for name in host_memcpy host_triad host_fma_f32 host_fma_f64 host_sgemm host_dgemm; do
    grep -Eq "^  ${name}_1core +[0-9]+\.[0-9] (GB/s|GFLOP/s) .*1 (thread|core)" "$dir/first" ||
      fail "$threads threads but no one-thread ${name}_1core row"
  done
else
  ! grep -q '_1core ' "$dir/first" || fail "one thread, yet per-core rows"
fi
"$minigpu" ceilings --cached > "$dir/second" 2>&1 || fail "--cached exited $?"
grep -q "^ceilings (cached in ${files[0]} (measured " "$dir/second" || { cat "$dir/second"; fail "--cached did not reuse the file"; }
[ "$(value host_memcpy "$dir/first")" = "$(value host_memcpy "$dir/second")" ] || fail "cached figure differs"

echo '{"key": "not this one", "ceilings": []' > "${files[0]}"  # truncated JSON
measure "$dir/third" --cached
grep -q "^ceilings (measured " "$dir/third" || { cat "$dir/third"; fail "a damaged cache file was trusted"; }
/usr/bin/python3 -c "import json,sys; json.load(open(sys.argv[1]))" "${files[0]}" || fail "the damaged file was not replaced"
echo "ceilings measured, cached, reused and re-measured over a damaged cache"
