#!/usr/bin/env bash
# Configures and builds miniGPU against a CUDA-enabled Kokkos install:
#   scripts/build_cuda.sh KOKKOS_ROOT [ARCH]     e.g. scripts/build_cuda.sh /opt/kokkos-4.6 90
# The GPU architecture is fixed when Kokkos is built (Kokkos_ARCH_HOPPER90=ON, ...); ARCH
# (90 for H100/H200, 80 for A100) is checked against that install so a mismatch fails here,
# not at the first kernel launch. The build goes to build-cuda/.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 KOKKOS_ROOT [ARCH]" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kokkos_root="$(cd "$1" && pwd)"
arch="${2:-}"
wrapper="$kokkos_root/bin/nvcc_wrapper"
if [ ! -x "$wrapper" ]; then
  echo "error: $wrapper not found: is $kokkos_root a CUDA-enabled Kokkos install?" >&2
  exit 2
fi
config="$(find "$kokkos_root/include" -name KokkosCore_config.h | head -n 1)"
if ! grep -q '^#define KOKKOS_ENABLE_CUDA' "$config"; then
  echo "error: $config does not enable CUDA" >&2
  exit 2
fi
if [ -n "$arch" ] && ! grep -Eq "^#define KOKKOS_ARCH_[A-Z]+${arch}\b" "$config"; then
  echo "error: Kokkos at $kokkos_root was not built for CUDA architecture $arch; it has:" >&2
  grep -E '^#define KOKKOS_ARCH_' "$config" >&2 || true
  exit 2
fi
args=(-DKokkos_ROOT="$kokkos_root" -DCMAKE_CXX_COMPILER="$wrapper" -DCMAKE_BUILD_TYPE=Release)
# Calling a host function from device code is only a warning in nvcc: make it an error.
args+=(-DCMAKE_CXX_FLAGS="-Xcudafe --diag_error=20011 ${CXXFLAGS:-}")
cmake -S "$root" -B "$root/build-cuda" "${args[@]}"
cmake --build "$root/build-cuda" --parallel "$(nproc)"
echo "built $root/build-cuda/src/minigpu; run: $root/build-cuda/src/minigpu devices"
