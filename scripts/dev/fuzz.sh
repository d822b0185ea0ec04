#!/usr/bin/env bash
# Fuzzes the input loader and planner with libFuzzer under ASan+UBSan (clang 14, Debian's
# clang-14 and libclang-rt-14-dev), seeded from inputs/ and tests/inputs/.
#   scripts/dev/fuzz.sh [SECONDS]     (default 60)
# Build tree: build-fuzz/. Corpus grows in build-fuzz/corpus/; a crash is written to
# build-fuzz/artifacts/ and makes this script exit non-zero: fix it, then add the input to
# tests/inputs/invalid/ (or valid-edge/) as a regression test.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
seconds="${1:-60}"
install_packages "${MINIGPU_PACKAGES[@]}" clang-14 libclang-rt-14-dev
build="$MINIGPU_ROOT/build-fuzz"
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$MINIGPU_ROOT" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMINIGPU_FUZZ=ON -DMINIGPU_NATIVE_ARCH=OFF -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
fi
cmake --build "$build" --parallel "$(nproc)" --target minigpu_fuzz_input
mkdir -p "$build/corpus" "$build/artifacts"
find "$MINIGPU_ROOT/inputs" "$MINIGPU_ROOT/tests/inputs" -name '*.yaml' -exec cp -n {} "$build/corpus/" \;
# Open MPI's own allocations at MPI_Init are not ours to fix.
export OMPI_MCA_mca_base_component_disable_dlclose=1
export LSAN_OPTIONS="suppressions=$MINIGPU_ROOT/tests/sanitizer/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$build" || exit 1
./tests/minigpu_fuzz_input "$build/corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1 2>&1 | tee "$build/fuzz.log" | grep -E "stat::|#[0-9]+ *DONE|ERROR|SUMMARY|Test unit written"
status=${PIPESTATUS[0]}
log "fuzzed for ${seconds} s: $(grep -m1 'stat::number_of_executed_units' "$build/fuzz.log" | awk '{print $2}') executions; exit $status"
exit "$status"
