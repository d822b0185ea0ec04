# The Kokkos source every GPU build uses, and a cache of Kokkos installs built from it (one per
# backend, architecture and compiler). Sourced after common.sh, not run, by cuda_kokkos.sh and
# hip_kokkos.sh. Settings (environment):
#   KOKKOS_SRC    a Kokkos source tree or release tarball (default: the Kokkos 4.6.01 tarball
#                 in the repository's third_party/, else ../shared/third_party, patched with
#                 the patch beside it, both checked against third_party/SHA256SUMS)
#   KOKKOS_PATCH  a patch applied to KOKKOS_SRC (default: the one beside the default tarball)
#   MINIGPU_CACHE_DIR  where built Kokkos installs are kept (default ~/.cache/minigpu)
# Sourced, not run.

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

# KokkosCore_config.h of the Kokkos at $1: an install (include/) or a configured build tree.
kokkos_config_header() {
  local candidate
  for candidate in "$1/include/KokkosCore_config.h" "$1/KokkosCore_config.h"; do
    [ -f "$candidate" ] && { echo "$candidate"; return 0; }
  done
  find "$1/include" -name KokkosCore_config.h 2>/dev/null | head -n 1
}

# The cache key of a Kokkos tree built or configured with the CMake OPTIONS (one string) and
# the compilers whose version lines are COMPILER_IDS: a checksum of the source, the patch,
# OPTIONS and COMPILER_IDS, so any change of them makes a tree afresh.
kokkos_cache_key() {
  local src="$1" patch="$2" options="$3" compiler_ids="$4"
  {
    source_checksum "$src"
    [ -z "$patch" ] || sha256sum "$patch" | cut -c1-64
    echo "$options"
    echo "$compiler_ids"
  } | sha256sum | cut -c1-12
}

# prepare_kokkos_tree DIR COMPILER OPTIONS [INSTALL_PREFIX]
# Unpacks and patches kokkos_source() into DIR/src and configures it into DIR/build with
# COMPILER (a path relative to the unpacked source, like bin/nvcc_wrapper, or a command on the
# PATH) and the CMake OPTIONS.
prepare_kokkos_tree() {
  local dir="$1" compiler="$2" options="$3" install_prefix="${4:-}" src patch
  src="$(kokkos_source)" || return 1
  patch="$(kokkos_patch)"
  if [ -d "$src" ]; then
    cp -a "$src" "$dir/src"
  else
    mkdir "$dir/src" && tar -xzf "$src" -C "$dir/src" --strip-components=1
  fi
  if [ -n "$patch" ]; then
    (cd "$dir/src" && patch -p1 -s <"$patch")
  fi
  case "$compiler" in
    */*) [ "${compiler#/}" != "$compiler" ] || compiler="$dir/src/$compiler" ;;
  esac
  # shellcheck disable=SC2046,SC2086
  cmake -S "$dir/src" -B "$dir/build" $(ninja_generator "$dir/build") -DCMAKE_CXX_COMPILER="$compiler" \
    ${install_prefix:+-DCMAKE_INSTALL_PREFIX="$install_prefix"} $options >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log" >&2; return 1; }
}

# cached_kokkos_tree NAME OPTIONS COMPILER_IDS: prints $MINIGPU_CACHE_DIR/kokkos-NAME-<key>, the
# place of the tree kokkos_source() makes with OPTIONS and COMPILER_IDS, or fails with
# kokkos_key_or_error's message. Succeeds with REUSED=1 where a finished tree is there already.
cached_kokkos_tree() {
  local key
  key="$(kokkos_key_or_error "$2" "$3")" || return 1
  CACHED_KOKKOS="$MINIGPU_CACHE_DIR/kokkos-$1-$key"
  REUSED=0
  [ ! -f "$CACHED_KOKKOS/.complete" ] || REUSED=1
}

# The key of kokkos_source() with OPTIONS and COMPILER_IDS, or an error naming what is missing.
kokkos_key_or_error() {
  local src
  if ! src="$(kokkos_source)"; then
    log "error: no Kokkos source: set KOKKOS_SRC (a source tree or tarball), or the install to" \
      "use (see the calling script); looked for $MINIGPU_THIRD_PARTY/kokkos-4.6.01.tar.gz (checked against third_party/SHA256SUMS)"
    return 1
  fi
  kokkos_cache_key "$src" "$(kokkos_patch)" "$1" "$2"
}

# ensure_kokkos NAME COMPILER OPTIONS COMPILER_IDS
# Prints the prefix of a Kokkos install built from kokkos_source() (see prepare_kokkos_tree).
# The install lives in $MINIGPU_CACHE_DIR/kokkos-NAME-<key> (kokkos_cache_key); a finished
# install is marked complete and reused.
ensure_kokkos() {
  local name="$1" compiler="$2" options="$3" compiler_ids="$4" prefix work
  cached_kokkos_tree "$name" "$options" "$compiler_ids" || return 1
  prefix="$CACHED_KOKKOS"
  if [ "$REUSED" = 1 ]; then
    log "Kokkos ($name): reusing $prefix"
    echo "$prefix"
    return 0
  fi
  work="$(mktemp -d "${TMPDIR:-/tmp}/minigpu-kokkos.XXXXXX")"
  log "Kokkos ($name): building $(basename "$(kokkos_source)") ($options) into $prefix"
  prepare_kokkos_tree "$work" "$compiler" "$options" "$prefix.partial" || return 1
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

# ensure_kokkos_configured NAME COMPILER OPTIONS COMPILER_IDS
# Like ensure_kokkos, but configures Kokkos without building it: prints the Kokkos_DIR of a
# configured build tree (its generated headers beside the patched source). A compile check
# needs no more, since it links nothing: ~15 s where a build takes ~3 min on 2 cores. The tree
# is $MINIGPU_CACHE_DIR/kokkos-NAME-config-<key>, a link to the directory it was made in:
# a configured tree names its own absolute paths, so it is never moved, and the link is
# replaced in one rename.
ensure_kokkos_configured() {
  local name="$1" compiler="$2" options="$3" compiler_ids="$4" link work
  cached_kokkos_tree "$name-config" "$options" "$compiler_ids" || return 1
  link="$CACHED_KOKKOS"
  if [ "$REUSED" = 1 ]; then
    log "Kokkos ($name, configured only): reusing $link"
    echo "$link/build"
    return 0
  fi
  mkdir -p "$MINIGPU_CACHE_DIR"
  work="$(mktemp -d "$link.XXXXXX")"
  log "Kokkos ($name): configuring $(basename "$(kokkos_source)") ($options) in $work, not building it"
  prepare_kokkos_tree "$work" "$compiler" "$options" || { rm -rf "$work"; return 1; }
  touch "$work/.complete"
  ln -sfn "$work" "$work.link"
  mv -T "$work.link" "$link"
  echo "$link/build"
}

# Configures and builds the whole project (library, minigpu, the tests that hold device code in
# a GPU build) in $3 with the C++ compiler $1 against the Kokkos install at $2 (Release unless
# the extra configure arguments after $3 say otherwise), through ccache where there is one.
build_project_with_compiler() {
  local compiler="$1" root="$2" dir="$3"
  shift 3
  local launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  # shellcheck disable=SC2046
  cmake -S "$MINIGPU_ROOT" -B "$dir" $(ninja_generator "$dir") -DKokkos_ROOT="$root" -DCMAKE_CXX_COMPILER="$compiler" \
    -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@"
  cmake --build "$dir" --parallel "$(nproc)"
}

# compile_check_project COMPILER KOKKOS DIR [CONFIGURE_ARGS...]
# The GPU compile checks: configures the project in DIR for the device compiler COMPILER
# against KOKKOS (a configured tree from ensure_kokkos_configured, or an install), then compiles
# the translation units of that GPU build that hold device code (scripts/gpu/device_units.py:
# the library and minigpu, whose kernels every test calls, and the tests with device code of
# their own, in unity batches) through scripts/gpu/device_compile_check.sh, which keeps to what
# only the device compiler checks. Nothing is linked. Each target is one batch (batch size 0), not
# CMake's batches of 8: every batch parses Kokkos through the device front end again (cudafe++ and
# cicc: 4 s or more a batch), and the CUDA check took 328 s of compiler time instead of 377
# (2-core AMD EPYC Zen 5, 2026-11-30). DIR stays incremental (ninja); a DIR configured otherwise
# (another generator, compiler or Kokkos) is made afresh.
compile_check_project() {
  local compiler="$1" kokkos_dir="$2" dir="$3"
  shift 3
  local stamp="Ninja $compiler $kokkos_dir $*"
  if [ -f "$dir/CMakeCache.txt" ] && [ "$(cat "$dir/.minigpu-compile-check" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$dir"
  fi
  local kokkos_var=Kokkos_ROOT  # an install's prefix; a configured tree is its own Kokkos_DIR
  [ ! -f "$kokkos_dir/KokkosConfig.cmake" ] || kokkos_var=Kokkos_DIR
  cmake -S "$MINIGPU_ROOT" -B "$dir" -G Ninja -D"$kokkos_var"="$kokkos_dir" -DCMAKE_CXX_COMPILER="$compiler" \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_COMPILER_LAUNCHER="$MINIGPU_ROOT/scripts/gpu/device_compile_check.sh" \
    -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 "$@"
  echo "$stamp" >"$dir/.minigpu-compile-check"
  local objects
  mapfile -t objects < <(python3 "$MINIGPU_ROOT/scripts/gpu/device_units.py" "$dir/compile_commands.json" "$MINIGPU_ROOT/tests")
  log "compiling ${#objects[@]} translation units with $(basename "$compiler"), linking none"
  cmake --build "$dir" --parallel "$(nproc)" --target "${objects[@]}"
}
