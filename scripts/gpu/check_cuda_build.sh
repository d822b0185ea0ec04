#!/usr/bin/env bash
# Compile-checks the CUDA build: the whole project (library, minigpu, every test, the cuBLAS
# vendor path) built with nvcc against a CUDA-enabled Kokkos, nvcc's device-code diagnostics
# treated as errors. Needs no GPU: it compiles and links, it does not run.
#   scripts/gpu/check_cuda_build.sh [BUILD_DIR]      (default: build-cuda-check/, kept incremental)
# Kokkos: KOKKOS_ROOT (an existing CUDA install), else built once from KOKKOS_SRC or from the
# Kokkos 4.6.01 source in third_party/ (Serial + CUDA, Kokkos_ARCH_${KOKKOS_ARCH:-HOPPER90})
# into ~/.cache/minigpu, keyed by source checksum and options (see scripts/gpu/cuda_kokkos.sh).
# Exit codes: 0 built; 77 skipped (no nvcc on the PATH); anything else: the build failed.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
source "$MINIGPU_ROOT/scripts/gpu/cuda_kokkos.sh"

if ! command -v nvcc >/dev/null; then
  echo "skipped: no nvcc on the PATH, so the CUDA build cannot be compiled here"
  exit 77
fi
build_dir="${1:-$MINIGPU_ROOT/build-cuda-check}"
start=$SECONDS
install_packages "${MINIGPU_PACKAGES[@]}"
kokkos_root="$(ensure_cuda_kokkos)"
require_cuda_kokkos "$kokkos_root"
# A compile check, not a build to run: no -O (CMAKE_BUILD_TYPE=None) cuts the host compiler's
# time by about 40 % (hipcc, experiments/matmul.cpp: 13.3 s at -O3, 8.1 s at -O0) and accepts
# exactly what -O3 accepts. build_cuda.sh and gpu_check.sh build Release.
build_project_with_cuda "$kokkos_root" "$build_dir" -DCMAKE_BUILD_TYPE="${MINIGPU_CHECK_BUILD_TYPE:-None}"
log "CUDA build compiled and linked in $((SECONDS - start)) s: $build_dir (Kokkos $kokkos_root)"
