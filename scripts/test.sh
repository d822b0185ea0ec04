#!/usr/bin/env bash
# Builds miniGPU and runs the whole test suite (unit, MPI and end-to-end) under ctest.
#   scripts/test.sh [--sanitize] [CTEST_ARGS...]
# --sanitize: a separate tree (build-sanitize/, ccache'd) built with AddressSanitizer and
# UndefinedBehaviorSanitizer, every test but the CUDA and HIP compile checks run under them; a
# sanitizer report fails the test. Only Open MPI's own leaks are suppressed
# (tests/sanitizer/lsan.supp).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
sanitize=0
if [ "${1:-}" = --sanitize ]; then
  sanitize=1
  shift
fi
install_packages "${MINIGPU_PACKAGES[@]}"
if [ "$sanitize" -eq 1 ]; then
  MINIGPU_BUILD="${MINIGPU_SANITIZE_BUILD_DIR:-$MINIGPU_ROOT/build-sanitize}"
  configure_and_build -DMINIGPU_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  # Open MPI's libraries have no frame pointers and unload their plugins at MPI_Finalize: slow
  # unwinding and kept plugins let the suppressions recognise Open MPI's own allocations.
  export OMPI_MCA_mca_base_component_disable_dlclose=1
  export ASAN_OPTIONS="detect_leaks=1:exitcode=99:fast_unwind_on_malloc=0"
  export LSAN_OPTIONS="suppressions=$MINIGPU_ROOT/tests/sanitizer/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  cd "$MINIGPU_BUILD"
  ctest --output-on-failure --timeout 900 -E '^(cuda|hip)_compile$' -LE '^(script|python)$' "$@"
  exit
fi
configure_and_build
cd "$MINIGPU_BUILD"
ctest --output-on-failure --timeout 600 "$@"
