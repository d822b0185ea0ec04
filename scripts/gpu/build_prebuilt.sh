#!/usr/bin/env bash
# Builds, here and before any GPU is lent, everything a short GPU slot runs, and packs it into
# one folder that travels with the tree (scripts/gpu/gpu_check.sh --prebuilt DEST):
#   scripts/gpu/build_prebuilt.sh DEST [ARCH]       (ARCH: 90, H100 and H200, by default)
# A CUDA Kokkos for Kokkos_ARCH_HOPPER90 (or KOKKOS_ARCH), built once into the cache
# (scripts/gpu/cuda_kokkos.sh); the project against it in build-cuda-prebuilt/ with
# -DMINIGPU_NATIVE_ARCH=OFF, so the host code runs on any x86-64 (the GPU node's CPU is not
# this one), and -DMINIGPU_ONEDNN=OFF; the runtime half of the offline bundle
# (scripts/gpu/gpu_bundle.sh: MPI, OpenBLAS, yaml-cpp); then scripts/gpu/pack_prebuilt.sh,
# which checks the libraries, the sm_90 code, the registers and spills of the native GEMM
# kernels, and the 64 MiB that travel. Needs nvcc and Debian's package registry; no GPU. On 2
# cores: 18 minutes the first time (2026-11-28: Kokkos 6, the project 11, bundle and pack 1).
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
source "$MINIGPU_ROOT/scripts/gpu/cuda_kokkos.sh"
case "${1:-}" in
  "" | -h | --help) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//'; [ -n "${1:-}" ]; exit $? ;;
esac
dest="$1"
arch="${2:-90}"
declare -A kokkos_arch_of=([70]=VOLTA70 [80]=AMPERE80 [89]=ADA89 [90]=HOPPER90 [100]=BLACKWELL100)
export KOKKOS_ARCH="${KOKKOS_ARCH:-${kokkos_arch_of[$arch]:-}}"
[ -n "$KOKKOS_ARCH" ] || { log "error: no Kokkos architecture known for $arch: set KOKKOS_ARCH"; exit 2; }
command -v nvcc >/dev/null || { log "error: no nvcc on the PATH"; exit 2; }
install_packages "${MINIGPU_PACKAGES[@]}"
build="${MINIGPU_CUDA_BUILD_DIR:-$MINIGPU_ROOT/build-cuda-prebuilt}"
kokkos_root="$(ensure_cuda_kokkos)"
require_cuda_kokkos "$kokkos_root" "$arch"
# No oneDNN: its 40 MB library would not fit the 64 MiB that travel, and the GPU check runs no
# host bfloat16 GEMM.
build_project_with_cuda "$kokkos_root" "$build" -DMINIGPU_NATIVE_ARCH=OFF -DMINIGPU_ONEDNN=OFF
bundle="$(mktemp -d)"
trap 'rm -rf "$bundle"' EXIT
bash "$MINIGPU_ROOT/scripts/gpu/gpu_bundle.sh" "$bundle"
bash "$MINIGPU_ROOT/scripts/gpu/pack_prebuilt.sh" "$build" "$dest" --bundle "$bundle"
