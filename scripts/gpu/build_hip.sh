#!/usr/bin/env bash
# Builds miniGPU for AMD GPUs (HIP) into build-hip/, the binary the Slurm scripts take on a node
# with AMD GPUs (scripts/slurm/find_binary.sh):
#   scripts/gpu/build_hip.sh [HIP_KOKKOS_ROOT] [ARCH]   e.g. scripts/gpu/build_hip.sh /opt/kokkos-hip AMD_GFX942
#   scripts/gpu/build_hip.sh "" AMD_GFX90A                the cached Kokkos for MI250X (Frontier, LUMI-G)
#   scripts/gpu/build_hip.sh "" AMD_GFX90A -DMPI_CXX_COMPILER=mpicxx.mpich   later arguments: the project's cmake
# Without HIP_KOKKOS_ROOT (argument or environment) it builds a HIP Kokkos once from the Kokkos
# 4.6.01 source in third_party/ with hipcc (scripts/gpu/hip_kokkos.sh: Serial host space, no
# rocThrust), into the cache. ARCH is a Kokkos architecture suffix (default AMD_GFX90A; Debian
# 12's hipcc 5.2 knows no gfx942, MI300A/X, so that needs the site's ROCm). Where apt offers
# hipcc (Debian 12) it is installed like every other package; elsewhere load the ROCm module.
# On Cray systems build with the site's hipcc and Cray MPICH (MPI_CXX_COMPILER or the CC
# wrapper's MPI), and run with MPICH_GPU_SUPPORT_ENABLED=1 for GPU-aware MPI (docs/clusters.md).
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
[ -n "${1:-}" ] && export HIP_KOKKOS_ROOT="$1"
[ -n "${2:-}" ] && export HIP_KOKKOS_ARCH="$2"
source "$MINIGPU_ROOT/scripts/gpu/hip_kokkos.sh"
if ! command -v hipcc >/dev/null && apt-cache show hipcc >/dev/null 2>&1; then
  install_packages "${MINIGPU_HIP_PACKAGES[@]}"
fi
if ! command -v hipcc >/dev/null; then
  log "error: no hipcc on the PATH: install ROCm's hipcc (or load its module) first"
  exit 2
fi
install_packages "${MINIGPU_RUN_PACKAGES[@]}"
kokkos_root="$(ensure_hip_kokkos)"
require_hip_kokkos "$kokkos_root"
if ! grep -q "^#define KOKKOS_ARCH_${HIP_KOKKOS_ARCH}\$" "$(kokkos_config_header "$kokkos_root")"; then
  log "error: Kokkos at $kokkos_root was not built for $HIP_KOKKOS_ARCH; it has:"
  grep -E '^#define KOKKOS_ARCH_' "$(kokkos_config_header "$kokkos_root")" >&2 || true
  exit 2
fi
dir="${MINIGPU_HIP_BUILD_DIR:-$MINIGPU_ROOT/build-hip}"
build_project_with_compiler hipcc "$kokkos_root" "$dir" "${@:3}"
echo "built $dir/src/minigpu; run: minigpu devices, or scripts/slurm/minigpu.sbatch on an AMD GPU partition"
