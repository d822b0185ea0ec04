#!/usr/bin/env bash
# Builds miniGPU for CUDA GPUs into build-cuda/ (the binary the Slurm scripts and
# gpu_check.sh look for first):
#   scripts/gpu/build_cuda.sh [KOKKOS_ROOT] [ARCH]     e.g. scripts/gpu/build_cuda.sh /opt/kokkos-4.6 90
#   scripts/gpu/build_cuda.sh "" 90                     the cached Kokkos, its architecture checked
#   scripts/gpu/build_cuda.sh "" 80 -DMPI_CXX_COMPILER=mpicxx.mpich   later arguments: the project's cmake
# Without KOKKOS_ROOT (argument or environment) it builds a CUDA Kokkos once from the Kokkos
# 4.6.01 source in third_party/, or from KOKKOS_SRC (see scripts/gpu/cuda_kokkos.sh).
# The GPU architecture is fixed when Kokkos is built (Kokkos_ARCH_HOPPER90=ON, ...); ARCH
# (90 for H100/H200, 80 for A100) is checked against that install so a mismatch fails here,
# not at the first kernel launch. A KokkosKernels is used only if it was built against this
# very Kokkos (CMake says which, in one line); the vendor matmul otherwise calls cuBLAS.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
source "$MINIGPU_ROOT/scripts/gpu/cuda_kokkos.sh"
if [ -n "${1:-}" ]; then
  KOKKOS_ROOT="$(cd "$1" && pwd)" || exit 2
fi
arch="${2:-}"
if ! command -v nvcc >/dev/null; then
  log "error: no nvcc on the PATH: install the CUDA toolkit (or load its module) first"
  exit 2
fi
kokkos_root="$(ensure_cuda_kokkos)"
require_cuda_kokkos "$kokkos_root" "$arch"
build_project_with_cuda "$kokkos_root" "${MINIGPU_CUDA_BUILD_DIR:-$MINIGPU_ROOT/build-cuda}" "${@:3}"
echo "built ${MINIGPU_CUDA_BUILD_DIR:-$MINIGPU_ROOT/build-cuda}/src/minigpu; run: scripts/gpu/gpu_check.sh, or minigpu devices"
