#!/usr/bin/env bash
# Builds miniGPU and runs the whole test suite (unit, MPI and end-to-end) under ctest.
#   scripts/test.sh [--sanitize | --all] [CTEST_ARGS...]
# The plain pass builds against the default Kokkos (MINIGPU_KOKKOS, scripts/host_kokkos.sh).
# --sanitize: a separate tree (build-sanitize/, ccache'd) against Debian's Kokkos 3.4 (Serial) and
# MPICH (so CI's second pass is also its MPICH leg: the MPI unit tests on 2-4 ranks, the
# end-to-end runs, the stall probe, signals and faults under MPICH's mpiexec), built with
# AddressSanitizer and UndefinedBehaviorSanitizer, every test but the scripts', the
# compile checks, the invalid-input corpus (test_invalid_inputs covers it), the real-GPU entries
# (they skip without one) and those labelled sanitized-elsewhere run under them; a
# sanitizer report fails the test. Only the MPI libraries' own leaks are suppressed
# (tests/sanitizer/lsan.supp).
# --all: both passes, as CI runs them (.ci/run): the plain pass, then the sanitizer pass, whose
# build runs beside the plain pass's ctest at nice 19, on the CPU time the tests leave idle
# (ranks waiting on each other, Slurm's daemons, the watchdog's budgets). It is not free: the
# plain ctest took 237 s longer, against the 331 s of build no longer waited for (docs/testing.md).
# Its log is printed only if it fails, and the sanitizer pass then builds again in the
# foreground, where the error shows.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
sanitize=0 all=0 build_only=0
case "${1:-}" in
  --sanitize) sanitize=1; shift ;;
  --all) all=1; shift ;;
  --sanitize-build-only) sanitize=1 build_only=1; shift ;;  # --all's background build
esac
install_packages "${MINIGPU_RUN_PACKAGES[@]}" "${MINIGPU_TEST_BUILD_PACKAGES[@]}"
# What only the tests need (PyTorch, Chromium, Slurm, matplotlib: ~2.5 min of apt on a fresh
# machine, mostly waiting on the disk) installs while the build keeps the cores busy.
# --all's background build has them already: the plain pass installed them before its ctest.
installing=
if [ "$build_only" -eq 0 ]; then
  install_packages "${MINIGPU_TEST_PACKAGES[@]}" &
  installing=$!
fi
tests_installed() {
  wait "$installing" || { log "error: installing the test packages failed"; exit 1; }
}
if [ "$sanitize" -eq 1 ]; then
  MINIGPU_BUILD="${MINIGPU_SANITIZE_BUILD_DIR:-$MINIGPU_ROOT/build-sanitize}"
  # The compatibility build: Debian's Kokkos 3.4, Serial only (the plain pass has the default,
  # Kokkos 4.6 with OpenMP), so both Kokkos generations pass the whole suite.
  export MINIGPU_KOKKOS=system
  # -O1 -g1 (line tables): what ASan's reports need, in half the compile time of -O2 -g.
  configure_and_build -DMINIGPU_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DMPI_CXX_COMPILER=mpicxx.mpich
  [ "$build_only" -eq 0 ] || exit 0
  tests_installed
  # Open MPI unloads its plugins at MPI_Finalize; kept, the suppressions recognise its own
  # allocations (should an entry launch it).
  export OMPI_MCA_mca_base_component_disable_dlclose=1
  # MPI_Init's hwloc reads the PCI device names (pci.ids) growing one buffer by realloc, which
  # ASan copies every time: 5 of the 6 s each process took to start. Our code asks hwloc nothing.
  export HWLOC_COMPONENTS=-pci
  # Frame-pointer unwinding on every malloc (ASan's default; the slow DWARF unwinder was kept for
  # Open MPI's libraries, which this MPICH pass no longer loads): the sanitized quickstart took
  # 4.5 s instead of 10.0, test_invalid_inputs 0.6 s instead of 4.3 (Zen 3, 2026-11-29).
  export ASAN_OPTIONS="detect_leaks=1:exitcode=99"
  export LSAN_OPTIONS="suppressions=$MINIGPU_ROOT/tests/sanitizer/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  cd "$MINIGPU_BUILD"
  ctest --output-on-failure --timeout 900 -LE '^(script|python|compile|corpus|gpu|sanitized-elsewhere)$' "$@"
  exit
fi
configure_and_build
tests_installed
if [ "$all" -eq 0 ]; then
  cd "$MINIGPU_BUILD"
  exec ctest --output-on-failure --timeout 600 "$@"
fi
beside="$(mktemp)"
# A session of its own, so that leaving early (a failed test, Ctrl-C) stops all of it: ninja and
# the compilers under it too.
setsid nice -n 19 bash "$MINIGPU_ROOT/scripts/test.sh" --sanitize-build-only >"$beside" 2>&1 &
building=$!
trap 'kill -- -"$building" 2>/dev/null; rm -f "$beside"' EXIT
(cd "$MINIGPU_BUILD" && ctest --output-on-failure --timeout 600 "$@") || exit 1
if ! wait "$building"; then
  log "the sanitizer build beside the plain pass failed; building again in the foreground. Its log:"
  tail -n 40 "$beside" >&2
fi
rm -f "$beside"  # exec runs no EXIT trap
exec bash "$MINIGPU_ROOT/scripts/test.sh" --sanitize "$@"
