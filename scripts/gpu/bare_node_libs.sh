#!/usr/bin/env bash
# Which shared libraries would a binary miss on a GPU node that has only a bare base system, the
# CUDA runtime and what the bundle carries?
#   scripts/gpu/bare_node_libs.sh BUNDLE_DIR BINARY...
# Prints "NAME: lib.so.N" (the first library the loader misses) for each binary that misses one
# and exits 1; exits 0 when all load.
# `ldd` here answers for this machine, where Debian's packages (ScaLAPACK, OpenBLAS, yaml-cpp...)
# are installed: it passed a prebuilt whose ScaLAPACK never travelled, and every step on the H100
# failed on it (2026-11-26). So the binaries are listed in a chroot holding only glibc, libstdc++,
# libgcc and zlib (what any node's image has), BUNDLE_DIR's packages unpacked, the CUDA runtime's
# folder and an empty stand-in for the driver's libcuda.so.1 (only a GPU node has the real one).
# Needs root (chroot, a private mount namespace); scripts/gpu/pack_prebuilt.sh calls it.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

[ $# -ge 2 ] || { echo "usage: $0 BUNDLE_DIR BINARY..." >&2; exit 2; }
bundle="$(cd "$1" && pwd)"
shift
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT

# Debian 12 merges /lib into /usr/lib; packages' own paths may still say /lib.
mkdir -p "$root/usr/lib" "$root/usr/lib64" "$root/usr/bin" "$root/driver" "$root/cuda" "$root/bin_under_test"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
ln -s usr/bin "$root/bin"
for package in libc6 libstdc++6 libgcc-s1 zlib1g; do
  while read -r f; do
    [ -d "$f" ] && continue
    [ -e "$f" ] || [ -L "$f" ] || continue
    mkdir -p "$root$(dirname "$f")"
    cp -a "$f" "$root$f"
  done < <(dpkg -L "$package")
done
unpacked="$root/unpacked"
mkdir -p "$unpacked"
for deb in "$bundle"/debs/*.deb; do
  [ -e "$deb" ] && dpkg-deb -x "$deb" "$unpacked"
done
for top in lib lib64 bin; do
  [ -d "$unpacked/$top" ] && [ ! -L "$unpacked/$top" ] && cp -a "$unpacked/$top/." "$root/usr/$top/"
done
[ -d "$unpacked/usr" ] && cp -a "$unpacked/usr/." "$root/usr/"
rm -rf "$unpacked"
# What update-alternatives links at install time (scripts/gpu/bundle_env.sh does the same).
lib="$root/usr/lib/x86_64-linux-gnu"
for l in libblas.so.3 liblapack.so.3; do
  [ -e "$lib/openblas-pthread/$l" ] && ln -sfn "openblas-pthread/$l" "$lib/$l"
done
echo 'int minigpu_driver_stand_in;' | gcc -x c -shared -Wl,-soname,libcuda.so.1 -o "$root/driver/libcuda.so.1" -
cuda_lib=""
for d in "${CUDA_HOME:-/usr/local/cuda}/lib64" "${CUDA_HOME:-/usr/local/cuda}/lib"; do
  [ -d "$d" ] && cuda_lib="$(readlink -f "$d")" && break
done

unshare -m bash -s "$root" "$cuda_lib" "$@" <<'EOF'
set -uo pipefail
root="$1" cuda_lib="$2"
shift 2
[ -z "$cuda_lib" ] || mount --bind "$cuda_lib" "$root/cuda"
bad=0
for binary in "$@"; do
  cp "$binary" "$root/bin_under_test/"
  name="$(basename "$binary")"
  listing="$(chroot "$root" /lib64/ld-linux-x86-64.so.2 \
    --library-path /driver:/cuda:/usr/lib/x86_64-linux-gnu/openblas-pthread --list "/bin_under_test/$name" 2>&1)"
  missing="$(sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p; s/.*error while loading shared libraries: \([^:]*\):.*/\1/p' <<<"$listing" | tr '\n' ' ')"
  grep -q 'libc.so.6 =>' <<<"$listing" || [ -n "$missing" ] || missing="(no listing: $(head -n 1 <<<"$listing"))"
  [ -z "$missing" ] || { echo "$name: $missing"; bad=1; }
  rm -f "$root/bin_under_test/$name"
done
exit "$bad"
EOF
