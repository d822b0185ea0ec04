# A CUDA-enabled Kokkos for the CUDA build, and configuring the project against it.
# Sourced after common.sh, not run. Settings (environment):
#   KOKKOS_ROOT   an existing CUDA Kokkos install: used as it is, nothing is built
#   KOKKOS_SRC    a Kokkos source tree or release tarball (default: the Kokkos 4.6.01 tarball
#                 in ../shared/third_party, patched for CUDA 13 with the patch beside it)
#   KOKKOS_PATCH  a patch applied to KOKKOS_SRC (default: the one beside the default tarball)
#   KOKKOS_ARCH   Kokkos architecture option suffix (default HOPPER90: H100/H200)
#   MINIGPU_CACHE_DIR  where built Kokkos installs are kept (default ~/.cache/minigpu)

MINIGPU_THIRD_PARTY="${MINIGPU_THIRD_PARTY:-$MINIGPU_ROOT/../shared/third_party}"
MINIGPU_CACHE_DIR="${MINIGPU_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/minigpu}"

# nvcc's device-code diagnostics that are only warnings by default but mean broken device
# code: calling a host function (20011, 20014) or a constexpr host function (20013, 20015)
# from device code, and a host variable used in device code (20012 in some releases).
MINIGPU_NVCC_DIAG_ERRORS=""
for _diag in 20011 20012 20013 20014 20015; do
  MINIGPU_NVCC_DIAG_ERRORS+=" -Xcudafe --diag_error=$_diag"
done

# The Kokkos source to build: KOKKOS_SRC, else the shared tarball (and its patch).
kokkos_source() {
  if [ -n "${KOKKOS_SRC:-}" ]; then
    echo "$KOKKOS_SRC"
  elif [ -f "$MINIGPU_THIRD_PARTY/kokkos-4.6.01.tar.gz" ]; then
    echo "$MINIGPU_THIRD_PARTY/kokkos-4.6.01.tar.gz"
  else
    return 1
  fi
}

kokkos_patch() {
  if [ -n "${KOKKOS_PATCH:-}" ]; then
    echo "$KOKKOS_PATCH"
  elif [ -z "${KOKKOS_SRC:-}" ]; then
    echo "$MINIGPU_THIRD_PARTY/kokkos-4.6.01-cuda13.patch"
  fi
}

# A content checksum of a tarball, or of every file of a source tree.
source_checksum() {
  if [ -d "$1" ]; then
    (cd "$1" && find . -type f ! -path './.git/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64)
  else
    sha256sum "$1" | cut -c1-64
  fi
}

kokkos_cmake_options() {
  local arch="${KOKKOS_ARCH:-HOPPER90}"
  echo "-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_${arch}=ON" \
    "-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_TESTS=OFF"
}

# Prints the prefix of a CUDA Kokkos install, building one into the cache when needed. The
# cache key covers the source, the patch, the options and the compilers, so any change of
# them builds afresh; a finished install is marked complete and reused as it is.
ensure_cuda_kokkos() {
  if [ -n "${KOKKOS_ROOT:-}" ]; then
    (cd "$KOKKOS_ROOT" && pwd)
    return 0
  fi
  local src patch key prefix work
  if ! src="$(kokkos_source)"; then
    log "error: no Kokkos source: set KOKKOS_ROOT (a CUDA Kokkos install) or KOKKOS_SRC (a source" \
      "tree or tarball); looked for $MINIGPU_THIRD_PARTY/kokkos-4.6.01.tar.gz"
    return 1
  fi
  patch="$(kokkos_patch)"
  key="$({
    source_checksum "$src"
    [ -z "$patch" ] || sha256sum "$patch" | cut -c1-64
    kokkos_cmake_options
    nvcc --version | tail -n 1
    g++ --version | head -n 1
  } | sha256sum | cut -c1-12)"
  prefix="$MINIGPU_CACHE_DIR/kokkos-cuda-${KOKKOS_ARCH:-HOPPER90}-$key"
  if [ -f "$prefix/.complete" ]; then
    log "CUDA Kokkos: reusing $prefix"
    echo "$prefix"
    return 0
  fi
  work="$(mktemp -d "${TMPDIR:-/tmp}/minigpu-kokkos.XXXXXX")"
  log "CUDA Kokkos: building $(basename "$src") ($(kokkos_cmake_options)) into $prefix"
  if [ -d "$src" ]; then
    cp -a "$src" "$work/src"
  else
    mkdir "$work/src" && tar -xzf "$src" -C "$work/src" --strip-components=1
  fi
  if [ -n "$patch" ]; then
    (cd "$work/src" && patch -p1 -s <"$patch")
  fi
  # shellcheck disable=SC2046
  cmake -S "$work/src" -B "$work/build" -DCMAKE_CXX_COMPILER="$work/src/bin/nvcc_wrapper" \
    -DCMAKE_INSTALL_PREFIX="$prefix.partial" $(kokkos_cmake_options) >"$work/configure.log" ||
    { cat "$work/configure.log" >&2; return 1; }
  cmake --build "$work/build" --parallel "$(nproc)" >"$work/build.log" 2>&1 ||
    { tail -n 50 "$work/build.log" >&2; return 1; }
  rm -rf "$prefix.partial"
  cmake --install "$work/build" >/dev/null
  # Installed paths are relative to the prefix (CMake config files compute it), so the
  # finished install can be renamed into place: no reader ever sees half an install.
  touch "$prefix.partial/.complete"
  rm -rf "$prefix"
  mv "$prefix.partial" "$prefix"
  rm -rf "$work"
  echo "$prefix"
}

# Fails unless the install at $1 enables CUDA (and, given $2, the architecture $2, e.g. 90).
require_cuda_kokkos() {
  local root="$1" arch="${2:-}" config
  config="$(find "$root/include" -name KokkosCore_config.h | head -n 1)"
  if [ ! -x "$root/bin/nvcc_wrapper" ] || [ -z "$config" ] || ! grep -q '^#define KOKKOS_ENABLE_CUDA' "$config"; then
    log "error: $root is not a CUDA-enabled Kokkos install (no bin/nvcc_wrapper or KOKKOS_ENABLE_CUDA)"
    return 2
  fi
  if [ -n "$arch" ] && ! grep -Eq "^#define KOKKOS_ARCH_[A-Z_]+${arch}\b" "$config"; then
    log "error: Kokkos at $root was not built for CUDA architecture $arch; it has:"
    grep -E '^#define KOKKOS_ARCH_' "$config" >&2 || true
    return 2
  fi
}

# Configures and builds the whole project (library, minigpu, every test) in $2 against the
# CUDA Kokkos at $1 with nvcc_wrapper; extra arguments go to the configure step.
build_project_with_cuda() {
  local root="$1" dir="$2"
  shift 2
  local launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$MINIGPU_ROOT" -B "$dir" -DKokkos_ROOT="$root" -DCMAKE_CXX_COMPILER="$root/bin/nvcc_wrapper" \
    -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
    -DCMAKE_CXX_FLAGS="$MINIGPU_NVCC_DIAG_ERRORS ${CXXFLAGS:-}" "$@"
  cmake --build "$dir" --parallel "$(nproc)"
}
