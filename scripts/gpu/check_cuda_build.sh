#!/usr/bin/env bash
# Compile-checks the CUDA build: every translation unit of it (the library, minigpu, the tests
# that hold device code, in unity batches) through nvcc's CUDA front end and device passes
# (cudafe++, cicc, ptxas), nvcc's device-code diagnostics treated as errors. Not repeated: the
# host g++ pass over cudafe++'s output (the host build's compile) and linking. Needs no GPU.
#   scripts/gpu/check_cuda_build.sh [BUILD_DIR]      (default: build-cuda-check/, kept incremental)
# Kokkos: KOKKOS_ROOT (an existing CUDA install), else the Kokkos 4.6.01 source in third_party/
# (or KOKKOS_SRC) configured for Serial + CUDA, Kokkos_ARCH_${KOKKOS_ARCH:-HOPPER90}, not built
# (nothing links against it), into ~/.cache/minigpu, keyed by source checksum and options (see
# scripts/gpu/cuda_kokkos.sh). scripts/gpu/build_cuda.sh builds and links the same for a GPU.
# Exit codes: 0 compiled; 77 skipped (no nvcc on the PATH); anything else: a compile failed.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
source "$MINIGPU_ROOT/scripts/gpu/cuda_kokkos.sh"

if ! command -v nvcc >/dev/null; then
  echo "skipped: no nvcc on the PATH, so the CUDA build cannot be compiled here"
  exit 77
fi
build_dir="${1:-$MINIGPU_ROOT/build-cuda-check}"
start=$SECONDS
install_packages "${MINIGPU_PACKAGES[@]}"
kokkos_dir="$(ensure_cuda_kokkos_configured)"
require_cuda_kokkos "$kokkos_dir"
compile_check_cuda "$kokkos_dir" "$build_dir"
log "CUDA build compile-checked in $((SECONDS - start)) s: $build_dir (Kokkos $kokkos_dir)"
