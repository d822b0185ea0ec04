#!/usr/bin/env bash
# Packs a finished build into the folder scripts/gpu/gpu_check.sh --prebuilt DIR runs from, so a
# short GPU slot goes on checks, not on compiling:
#   scripts/gpu/pack_prebuilt.sh BUILD_DIR DEST [--bundle BUNDLE_DIR] [--limit-mib N] [--this-cpu]
#   DEST/bin/minigpu, DEST/share/minigpu/   `cmake --install --strip` of BUILD_DIR
#   DEST/tests.tar.xz                       the test executables with GPU cases (ctest -L gpu),
#                                           and tests/cuda_reference where the build has it:
#                                           statically linked alike, they pack 10 to 1
#   DEST/bundle/                            BUNDLE_DIR's packages (scripts/gpu/gpu_bundle.sh),
#                                           without the Kokkos source: MPI and the libraries
#   DEST/BUILD_INFO                         compiler, flags, Kokkos devices and architecture
#   DEST/CHECKS                             what was checked here, at no device time
# Checks, each failing the pack: no -march=native (the node's CPU is not this one); every
# library each binary needs is found (with a bundle: on a bare base plus the bundle, in a chroot,
# scripts/gpu/bare_node_libs.sh; without: on this machine), but the GPU driver's (libcuda.so.1: only a GPU node has it); a CUDA build holds sm_XX code for Kokkos's
# architecture; DEST plus the tracked tree fit in --limit-mib (default 64: what travels to the
# GPU node). Where cuobjdump is on the PATH, each kernel's registers and spills go to
# DEST/resource_usage.txt, and the native GEMM kernels' lines to CHECKS (a spill is a warning).
# --this-cpu: a build for this machine only (-march=native allowed): the CI dress rehearsal of
# gpu_check.sh packs a host build this way (tests/e2e/check_gpu_check.sh).
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

usage() { echo "usage: $0 BUILD_DIR DEST [--bundle BUNDLE_DIR] [--limit-mib N] [--this-cpu]" >&2; exit 2; }
case "${1:-}" in -h | --help) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
[ $# -ge 2 ] || usage
build="$(cd "$1" && pwd)" || usage
dest="$2"
shift 2
bundle="" limit_mib=64 this_cpu=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) [ $# -ge 2 ] || usage; bundle="$(cd "$2" && pwd)" || usage; shift 2 ;;
    --limit-mib) [[ "${2:-}" =~ ^[0-9]+$ ]] || usage; limit_mib="$2"; shift 2 ;;
    --this-cpu) this_cpu=1; shift ;;
    *) usage ;;
  esac
done
[ -f "$build/CMakeCache.txt" ] && [ -x "$build/src/minigpu" ] || { log "error: $build is not a finished minigpu build"; exit 2; }
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" | head -n 1; }

rm -rf "$dest"
mkdir -p "$dest/tests"
dest="$(cd "$dest" && pwd)"
checks="$dest/CHECKS"
problems=0
note() { echo "$*" >>"$checks"; }
problem() { note "FAIL: $*"; log "error: $*"; problems=$((problems + 1)); }

cmake --install "$build" --prefix "$dest" --strip >/dev/null
# The test executables behind `ctest -L gpu` (NAME_gpu runs NAME --gtest_filter=*/gpu*).
mapfile -t tests < <(ctest --test-dir "$build" -N -V -L gpu | sed -n 's/^.*Test command: \([^ ]*\) .*/\1/p' | tr -d '"' | sort -u)
for t in "${tests[@]}" "$build/tests/cuda_reference"; do
  [ -x "$t" ] && install -s "$t" "$dest/tests/"
done
if [ -n "$bundle" ]; then
  # Its runtime half: nothing is compiled on the node, so no -dev package (headers, static
  # libraries) travels.
  mkdir -p "$dest/bundle/debs"
  { grep -v -- '-dev ' "$bundle/MANIFEST" || true; } >"$dest/bundle/MANIFEST"
  while read -r package version _; do
    cp "$bundle/debs/${package}_${version//:/%3a}_"*.deb "$dest/bundle/debs/"
  done <"$dest/bundle/MANIFEST"
fi

flags="$(cache CMAKE_CXX_FLAGS) $({ grep -ho -- '-march=[^ ]*' "$build/build.ninja" 2>/dev/null || true; } | sort -u | tr '\n' ' ')"
{
  echo "git: $(git -C "$MINIGPU_ROOT" rev-parse --short HEAD)"
  echo "compiler: $(cache CMAKE_CXX_COMPILER)"
  echo "flags: $flags"
  echo "kokkos: $(cache Kokkos_DIR)"
  grep -hE '^#define KOKKOS_(ENABLE_(CUDA|HIP|OPENMP|SERIAL)|ARCH_[A-Z_]+[0-9]+)\b' \
    "$(dirname "$(cache Kokkos_DIR)")"/../../include/KokkosCore_config.h "$(cache Kokkos_DIR)"/KokkosCore_config.h \
    2>/dev/null | sort -u | sed 's/^#define /  /' || true  # an install's header, or a build tree's
} >"$dest/BUILD_INFO"

note "packed $(date -u +%Y-%m-%dT%H:%M:%SZ) from $build"
if [ "$this_cpu" -eq 1 ]; then
  note "not checked: -march=native (--this-cpu: for this machine only)"
elif grep -q -- '-march=native' <<<"$flags"; then
  problem "built with -march=native: configure with -DMINIGPU_NATIVE_ARCH=OFF (the GPU node's CPU is not this one)"
else
  note "ok: no -march=native"
fi

# Libraries. With a bundle: resolved on a bare base (glibc, libstdc++, libgcc, zlib) plus the
# bundle and the CUDA runtime, in a chroot (bare_node_libs.sh): ldd here finds Debian's copies
# and once passed a pack whose ScaLAPACK never travelled. Without one: ldd on this machine, which
# is all a node that installs the same packages needs.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
binaries=("$dest/bin/minigpu" "$dest"/tests/*)
if [ -n "$bundle" ] && [ "$(id -u)" -eq 0 ]; then
  if missing="$(bash "$MINIGPU_ROOT/scripts/gpu/bare_node_libs.sh" "$dest/bundle" "${binaries[@]}")"; then
    note "ok: on a bare base with the bundle, every binary finds its libraries but the driver's (libcuda.so.1) ($(ls "$dest/tests" | wc -l) test executables)"
  else
    while read -r line; do problem "needs libraries that do not travel (bare base + bundle): $line"; done <<<"$missing"
  fi
else
  [ -z "$bundle" ] || note "not checked: a bare base (bare_node_libs.sh needs root); ldd on this machine instead"
  unfound=0
  for binary in "${binaries[@]}"; do
    missing="$(ldd "$binary" 2>&1 | sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p' |
      { grep -vx 'libcuda.so.1' || true; } | tr '\n' ' ')"
    if [ -n "$missing" ]; then
      problem "$(basename "$binary") needs libraries not found here: $missing"
      unfound=1
    fi
  done
  [ "$unfound" -eq 1 ] ||
    note "ok: every binary finds its libraries on this machine but the driver's (libcuda.so.1) ($(ls "$dest/tests" | wc -l) test executables)"
fi

if grep -q '^  KOKKOS_ENABLE_CUDA' "$dest/BUILD_INFO"; then
  sm="$(sed -n 's/^  KOKKOS_ARCH_[A-Z_]*[A-Z]\([0-9][0-9]*\)$/\1/p' "$dest/BUILD_INFO" | head -n 1)"
  # The GPU backend's marker (core/backend.cpp) and the sm_XX code, read from the binary itself.
  if grep -aq 'minigpu-gpu-backend:Cuda' "$dest/bin/minigpu" && grep -aq "sm_${sm}" "$dest/bin/minigpu"; then
    note "ok: bin/minigpu has the CUDA backend and sm_${sm} code ($(grep -ao "\.target sm_${sm}" "$dest/bin/minigpu" | wc -l) PTX modules for sm_${sm})"
  else
    problem "bin/minigpu lacks the CUDA backend's marker or sm_${sm} code"
  fi
  if command -v cuobjdump >/dev/null; then
    if cuobjdump --list-elf "$dest/bin/minigpu" 2>/dev/null | grep -q "sm_${sm}"; then
      note "ok: bin/minigpu holds sm_${sm} code"
    else
      problem "bin/minigpu holds no sm_${sm} code: $(cuobjdump --list-elf "$dest/bin/minigpu" 2>&1 | head -n 3 | tr '\n' ' ')"
    fi
    cuobjdump --dump-resource-usage "$dest/bin/minigpu" >"$dest/resource_usage.txt" 2>&1 || true
    # The native GEMM's kernels (kernels/gemm_*): registers and spills, the float64 one under
    # LaunchBounds<256,2> the likeliest to spill.
    grep -iA1 'gemm' "$dest/resource_usage.txt" | grep -E 'REG|STACK|SPILL' | head -n 20 >>"$checks" || true
    if grep -iA1 'gemm' "$dest/resource_usage.txt" | grep -Eq 'SPILL[^:]*:[1-9]|spill (stores|loads) [1-9]'; then
      note "warning: a native GEMM kernel spills registers (resource_usage.txt)"
    fi
  else
    # No cuobjdump (a toolkit without its binary utilities): ptxas reports the same when the
    # unit that instantiates the native GEMM for every dtype (gemm/timing.cpp) compiles again.
    /usr/bin/python3 - "$build/compile_commands.json" "$scratch/gemm.o" >"$scratch/ptxas.sh" <<'PY'
import json, shlex, sys
for e in json.load(open(sys.argv[1])):
    if "minigpu_gemm.dir/Unity/" in e["file"]:
        args = shlex.split(e["command"])
        args[args.index("-o") + 1] = sys.argv[2]
        print("cd " + shlex.quote(e["directory"]) + " && " + shlex.join(args + ["-Xptxas", "-v"]))
PY
    if [ -s "$scratch/ptxas.sh" ] && bash "$scratch/ptxas.sh" >"$scratch/ptxas.log" 2>&1; then
      c++filt <"$scratch/ptxas.log" >"$dest/resource_usage.txt"
      note "registers and spills (no cuobjdump on the PATH): ptxas -v on gemm/timing.cpp's unit:"
      # Each native GEMM kernel (its body, GemmGpuBody<scaled, element type>): spills, registers.
      # A kernel not found is said so: the body's rename once left these lines empty unnoticed.
      entries='Compiling entry function.*GemmGpuBody<'
      if grep -q "$entries" "$dest/resource_usage.txt"; then
        grep -A3 "$entries" "$dest/resource_usage.txt" |
          sed -n 's/.*Compiling entry function.*GemmGpuBody<\([^<>]*\), Kokkos::[A-Za-z:]*>.*/  GemmGpuBody<\1>:/p;
                  s/^.*\(Used [0-9]* registers\).*/    \1/p; s/^ *\([0-9]* bytes stack frame.*\)/    \1/p' >>"$checks"
      else
        problem "no native GEMM kernel (GemmGpuBody) in ptxas's report of gemm/timing.cpp's unit"
      fi
      if grep -A3 "$entries" "$dest/resource_usage.txt" | grep -Eq '[1-9][0-9]* bytes spill'; then
        note "warning: a native GEMM kernel spills registers (resource_usage.txt)"
      fi
    else
      note "not checked: no cuobjdump on the PATH, and ptxas -v on gemm/timing.cpp's unit failed"
    fi
  fi
fi

tar -C "$dest" -cf - tests | xz -T0 -"${MINIGPU_XZ_LEVEL:-6}" >"$dest/tests.tar.xz"  # 0: the rehearsal's, fast
rm -rf "$dest/tests"
tree_bytes="$(git -C "$MINIGPU_ROOT" ls-files -z | (cd "$MINIGPU_ROOT" && xargs -0 du -cb 2>/dev/null) | tail -n 1 | cut -f1)"
dest_bytes="$(du -sb "$dest" | cut -f1)"
total_mib=$(( (tree_bytes + dest_bytes + (1 << 20) - 1) >> 20 ))
if [ "$total_mib" -gt "$limit_mib" ]; then
  problem "$dest ($((dest_bytes >> 20)) MiB) with the tracked tree ($((tree_bytes >> 20)) MiB) is $total_mib MiB: over the $limit_mib MiB that travel"
else
  note "ok: $((dest_bytes >> 20)) MiB here + $((tree_bytes >> 20)) MiB tracked = $total_mib MiB of $limit_mib MiB"
fi
cat "$checks"
[ "$problems" -eq 0 ] || exit 1
log "packed $dest: scripts/gpu/gpu_check.sh --prebuilt $dest --deadline SECONDS"
