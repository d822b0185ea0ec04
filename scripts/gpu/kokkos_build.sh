# The Kokkos source every GPU build uses, and a cache of Kokkos installs built from it (one per
# backend, architecture and compiler). Sourced after common.sh, not run, by cuda_kokkos.sh and
# hip_kokkos.sh. Settings (environment):
#   KOKKOS_SRC    a Kokkos source tree or release tarball (default: the Kokkos 4.6.01 tarball
#                 in the repository's third_party/, else ../shared/third_party, patched with
#                 the patch beside it, both checked against third_party/SHA256SUMS)
#   KOKKOS_PATCH  a patch applied to KOKKOS_SRC (default: the one beside the default tarball)
#   MINIGPU_CACHE_DIR  where built Kokkos installs are kept (default ~/.cache/minigpu)

# The vendored copy first, so a clone anywhere builds; the shared folder for older checkouts.
if [ -z "${MINIGPU_THIRD_PARTY:-}" ]; then
  MINIGPU_THIRD_PARTY="$MINIGPU_ROOT/third_party"
  [ -f "$MINIGPU_THIRD_PARTY/kokkos-4.6.01.tar.gz" ] || MINIGPU_THIRD_PARTY="$MINIGPU_ROOT/../shared/third_party"
fi
MINIGPU_CACHE_DIR="${MINIGPU_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/minigpu}"

# Checks files of MINIGPU_THIRD_PARTY against the repository's third_party/SHA256SUMS: a
# truncated download or an edited copy is refused, never built and cached under its name.
verify_third_party() {
  local sums="$MINIGPU_ROOT/third_party/SHA256SUMS" file want got
  for file in "$@"; do
    want="$(awk -v f="$file" '$2 == f { print $1 }' "$sums")"
    got="$(sha256sum "$MINIGPU_THIRD_PARTY/$file" 2>/dev/null | cut -c1-64)"
    if [ -z "$want" ] || [ "$got" != "$want" ]; then
      log "error: $MINIGPU_THIRD_PARTY/$file: sha256 ${got:-missing}, expected ${want:-an entry in $sums}"
      return 1
    fi
  done
}

# The Kokkos source to build: KOKKOS_SRC, else the vendored (or shared) tarball and its patch.
kokkos_source() {
  if [ -n "${KOKKOS_SRC:-}" ]; then
    echo "$KOKKOS_SRC"
  elif [ -f "$MINIGPU_THIRD_PARTY/kokkos-4.6.01.tar.gz" ]; then
    verify_third_party kokkos-4.6.01.tar.gz kokkos-4.6.01-cuda13.patch || return 1
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

# ensure_kokkos NAME COMPILER OPTIONS COMPILER_IDS
# Prints the prefix of a Kokkos install built from kokkos_source() with the CMake OPTIONS
# (one string) and COMPILER: a path relative to the unpacked source (bin/nvcc_wrapper), or a
# command on the PATH. The install lives in $MINIGPU_CACHE_DIR/kokkos-NAME-<key>, the key a
# checksum of the source, the patch, OPTIONS and COMPILER_IDS (the compilers' version lines),
# so any change of them builds afresh; a finished install is marked complete and reused.
ensure_kokkos() {
  local name="$1" compiler="$2" options="$3" compiler_ids="$4"
  local src patch key prefix work
  if ! src="$(kokkos_source)"; then
    log "error: no Kokkos source: set KOKKOS_SRC (a source tree or tarball), or the install to" \
      "use (see the calling script); looked for $MINIGPU_THIRD_PARTY/kokkos-4.6.01.tar.gz (checked against third_party/SHA256SUMS)"
    return 1
  fi
  patch="$(kokkos_patch)"
  key="$({
    source_checksum "$src"
    [ -z "$patch" ] || sha256sum "$patch" | cut -c1-64
    echo "$options"
    echo "$compiler_ids"
  } | sha256sum | cut -c1-12)"
  prefix="$MINIGPU_CACHE_DIR/kokkos-$name-$key"
  if [ -f "$prefix/.complete" ]; then
    log "Kokkos ($name): reusing $prefix"
    echo "$prefix"
    return 0
  fi
  work="$(mktemp -d "${TMPDIR:-/tmp}/minigpu-kokkos.XXXXXX")"
  log "Kokkos ($name): building $(basename "$src") ($options) into $prefix"
  if [ -d "$src" ]; then
    cp -a "$src" "$work/src"
  else
    mkdir "$work/src" && tar -xzf "$src" -C "$work/src" --strip-components=1
  fi
  if [ -n "$patch" ]; then
    (cd "$work/src" && patch -p1 -s <"$patch")
  fi
  case "$compiler" in
    */*) [ "${compiler#/}" != "$compiler" ] || compiler="$work/src/$compiler" ;;
  esac
  # shellcheck disable=SC2086
  cmake -S "$work/src" -B "$work/build" -DCMAKE_CXX_COMPILER="$compiler" \
    -DCMAKE_INSTALL_PREFIX="$prefix.partial" $options >"$work/configure.log" 2>&1 ||
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

# Configures and builds the whole project (library, minigpu, every test) in $3 with the C++
# compiler $1 against the Kokkos install at $2 (Release unless the extra configure arguments
# after $3 say otherwise), through ccache where there is one.
build_project_with_compiler() {
  local compiler="$1" root="$2" dir="$3"
  shift 3
  local launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$MINIGPU_ROOT" -B "$dir" -DKokkos_ROOT="$root" -DCMAKE_CXX_COMPILER="$compiler" \
    -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@"
  cmake --build "$dir" --parallel "$(nproc)"
}
