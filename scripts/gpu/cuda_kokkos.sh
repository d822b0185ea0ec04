# A CUDA-enabled Kokkos for the CUDA build, and configuring the project against it.
# Sourced after common.sh, not run. Settings (environment):
#   KOKKOS_ROOT   an existing CUDA Kokkos install: used as it is, nothing is built
#   KOKKOS_ARCH   Kokkos architecture option suffix (default HOPPER90: H100/H200)
#   KOKKOS_SRC, KOKKOS_PATCH, MINIGPU_CACHE_DIR: the source and the cache (scripts/gpu/kokkos_build.sh)
# Sourced, not run.

source "$MINIGPU_ROOT/scripts/gpu/kokkos_build.sh"

# nvcc's device-code diagnostics that are only warnings by default but mean broken device
# code: calling a host function (20011, 20014) or a constexpr host function (20013, 20015)
# from device code, and a host variable used in device code (20012 in some releases).
MINIGPU_NVCC_DIAG_ERRORS=""
for _diag in 20011 20012 20013 20014 20015; do
  MINIGPU_NVCC_DIAG_ERRORS+=" -Xcudafe --diag_error=$_diag"
done

# OpenMP for the host space, as in the host build: the GPU node's cores shared out among its ranks.
kokkos_cmake_options() {
  local arch="${KOKKOS_ARCH:-HOPPER90}"
  echo "-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_${arch}=ON" \
    "-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_TESTS=OFF"
}

# KOKKOS_ROOT (an install, used as it is) if set, else the CUDA Kokkos that $1 (ensure_kokkos or
# ensure_kokkos_configured, scripts/gpu/kokkos_build.sh) makes in the cache.
cuda_kokkos_from() {
  if [ -n "${KOKKOS_ROOT:-}" ]; then
    (cd "$KOKKOS_ROOT" && pwd)
    return 0
  fi
  "$1" "cuda-${KOKKOS_ARCH:-HOPPER90}" bin/nvcc_wrapper "$(kokkos_cmake_options)" \
    "$(nvcc --version | tail -n 1; g++ --version | head -n 1)"
}

# The prefix of a CUDA Kokkos install, built into the cache unless KOKKOS_ROOT names one.
ensure_cuda_kokkos() { cuda_kokkos_from ensure_kokkos; }

# The Kokkos_DIR of a configured, unbuilt CUDA Kokkos for the compile check (or KOKKOS_ROOT).
ensure_cuda_kokkos_configured() { cuda_kokkos_from ensure_kokkos_configured; }

# Fails unless the Kokkos at $1 (an install, or a configured tree) enables CUDA (and, given $2,
# the architecture $2, e.g. 90).
require_cuda_kokkos() {
  local root="$1" arch="${2:-}" config
  config="$(kokkos_config_header "$root")"
  if ! cuda_kokkos_wrapper "$root" >/dev/null 2>&1 || [ -z "$config" ] || ! grep -q '^#define KOKKOS_ENABLE_CUDA' "$config"; then
    log "error: $root is not a CUDA-enabled Kokkos (no bin/nvcc_wrapper or KOKKOS_ENABLE_CUDA)"
    return 2
  fi
  # Kokkos 4.2-4.4 allocated with cudaMallocAsync by default (4.5 on: off, as built here), whose
  # memory Cray MPICH's GTL cannot map (cuIpcGetMemHandle: invalid argument): a site's install may.
  if grep -q '^#define KOKKOS_ENABLE_IMPL_CUDA_MALLOC_ASYNC' "$config"; then
    log "warning: $root allocates with cudaMallocAsync: GPU-aware Cray MPICH fails on it (GTL:" \
      "cuIpcGetMemHandle: invalid argument); rebuild Kokkos with -DKokkos_ENABLE_IMPL_CUDA_MALLOC_ASYNC=OFF"
  fi
  if [ -n "$arch" ] && ! grep -Eq "^#define KOKKOS_ARCH_[A-Z_]+${arch}\b" "$config"; then
    log "error: Kokkos at $root was not built for CUDA architecture $arch; it has:"
    grep -E '^#define KOKKOS_ARCH_' "$config" >&2 || true
    return 2
  fi
}

# The CUDA compile check in $2 against the configured Kokkos at $1 (compile_check_project), with
# nvcc's device-code diagnostics as errors; extra arguments go to the configure step.
compile_check_cuda() {
  local kokkos_dir="$1" dir="$2" wrapper
  shift 2
  wrapper="$(cuda_kokkos_wrapper "$kokkos_dir")" || return 2
  compile_check_project "$wrapper" "$kokkos_dir" "$dir" -DCMAKE_CXX_FLAGS="$MINIGPU_NVCC_DIAG_ERRORS ${CXXFLAGS:-}" "$@"
}

# nvcc_wrapper beside a CUDA Kokkos: bin/ of an install (a Kokkos_ROOT), or of the source a
# configured tree (a Kokkos_DIR) was made from.
cuda_kokkos_wrapper() {
  local dir="$1" candidate
  for candidate in "$dir/bin/nvcc_wrapper" "$dir/../src/bin/nvcc_wrapper"; do
    if [ -x "$candidate" ]; then
      (cd "$(dirname "$candidate")" && echo "$PWD/nvcc_wrapper")
      return 0
    fi
  done
  log "error: no bin/nvcc_wrapper in or beside $dir: not a CUDA Kokkos"
  return 1
}

# Configures and builds the whole project in $2 against the CUDA Kokkos at $1 with nvcc_wrapper;
# extra arguments go to the configure step.
build_project_with_cuda() {
  local root="$1" dir="$2"
  shift 2
  build_project_with_compiler "$root/bin/nvcc_wrapper" "$root" "$dir" \
    -DCMAKE_CXX_FLAGS="$MINIGPU_NVCC_DIAG_ERRORS ${CXXFLAGS:-}" "$@"
}
