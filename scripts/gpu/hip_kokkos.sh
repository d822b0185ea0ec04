# A HIP-enabled Kokkos for the HIP compile check, and the check against it.
# Sourced after common.sh, not run. Settings (environment):
#   HIP_KOKKOS_ROOT  an existing HIP Kokkos install: used as it is, nothing is configured
#   HIP_KOKKOS_ARCH  Kokkos architecture option suffix (default AMD_GFX90A: MI250X; Debian 12's
#                    clang 15 knows no gfx942, so MI300A/X needs a newer ROCm's hipcc)
#   KOKKOS_SRC, KOKKOS_PATCH, MINIGPU_CACHE_DIR: the source and the cache (scripts/gpu/kokkos_build.sh)
# Separate names from the CUDA check's KOKKOS_ROOT / KOKKOS_ARCH, so one environment can set both.
# Sourced, not run.

source "$MINIGPU_ROOT/scripts/gpu/kokkos_build.sh"

# Debian 12 packages: hipcc 5.2.3 (clang 15), the HIP runtime's headers and library, and the
# device bitcode libraries clang links into every AMD GPU kernel. Kokkos 4.6 needs HIP >= 5.2.
MINIGPU_HIP_PACKAGES=(hipcc libamdhip64-dev rocm-device-libs)

# hipcc asks rocm_agent_enumerator for the GPU (and prints its traceback where there is none)
# unless told the target: name the one Kokkos is built for.
HIP_KOKKOS_ARCH="${HIP_KOKKOS_ARCH:-AMD_GFX90A}"
_hip_target="${HIP_KOKKOS_ARCH#AMD_}"
export HCC_AMDGPU_TARGET="${HCC_AMDGPU_TARGET:-${_hip_target,,}}"

# rocThrust (Kokkos::sort's HIP path) is not packaged in Debian 12; Kokkos sorts without it.
# The host space stays Serial: Debian 12's hipcc (clang 15) finds OpenMP headers only with
# libomp-15-dev, one more package for what the CUDA check already compiles (the OpenMP host paths).
# hipMallocAsync off (Kokkos 4.6 turns it on with HIP): memory from a stream-ordered pool cannot
# be handed to another process by IPC, which GPU-aware MPI on a node relies on (the trap
# cudaMallocAsync set for Cray MPICH's GTL with Kokkos 4.2-4.4; Kokkos turns it off for ROCm 7).
hip_kokkos_cmake_options() {
  echo "-DKokkos_ENABLE_HIP=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_${HIP_KOKKOS_ARCH}=ON" \
    "-DKokkos_ENABLE_IMPL_HIP_MALLOC_ASYNC=OFF" \
    "-DKokkos_ENABLE_ROCTHRUST=OFF -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17" \
    "-DKokkos_ENABLE_TESTS=OFF"
}

# HIP_KOKKOS_ROOT (an install, used as it is) if set, else the HIP Kokkos that $1 (ensure_kokkos
# or ensure_kokkos_configured, scripts/gpu/kokkos_build.sh) makes in the cache.
hip_kokkos_from() {
  if [ -n "${HIP_KOKKOS_ROOT:-}" ]; then
    (cd "$HIP_KOKKOS_ROOT" && pwd)
    return 0
  fi
  "$1" "hip-$HIP_KOKKOS_ARCH" hipcc "$(hip_kokkos_cmake_options)" "$(hipcc --version 2>/dev/null | head -n 2)"
}

# The Kokkos_DIR of a configured, unbuilt HIP Kokkos for the compile check.
ensure_hip_kokkos_configured() { hip_kokkos_from ensure_kokkos_configured; }

# The prefix of a HIP Kokkos install, built into the cache (scripts/gpu/build_hip.sh).
ensure_hip_kokkos() { hip_kokkos_from ensure_kokkos; }

# Fails unless the Kokkos at $1 (an install, or a configured tree) enables HIP.
require_hip_kokkos() {
  local config
  config="$(kokkos_config_header "$1")"
  if [ -z "$config" ] || ! grep -q '^#define KOKKOS_ENABLE_HIP$' "$config"; then
    log "error: $1 is not a HIP-enabled Kokkos (no KOKKOS_ENABLE_HIP)"
    return 2
  fi
  if grep -q '^#define KOKKOS_ENABLE_IMPL_HIP_MALLOC_ASYNC' "$config"; then
    log "warning: $1 allocates with hipMallocAsync: GPU-aware MPI between ranks on a node may fail" \
      "to map that memory (IPC); rebuild Kokkos with -DKokkos_ENABLE_IMPL_HIP_MALLOC_ASYNC=OFF"
  fi
}

# The HIP compile check in $2 against the configured Kokkos at $1 (compile_check_project); extra
# arguments go to the configure step.
compile_check_hip() {
  local kokkos_dir="$1" dir="$2"
  shift 2
  compile_check_project hipcc "$kokkos_dir" "$dir" "$@"
}
