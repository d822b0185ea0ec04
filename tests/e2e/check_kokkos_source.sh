#!/usr/bin/env bash
# The GPU compile checks find the Kokkos 4.6.01 source and its CUDA 13 patch in the repository's
# third_party/, with the release's checksums, in this checkout and in a clone with nothing
# beside it (issue 21: a clone not next to ../shared/ failed cuda_compile), and refuse a copy
# whose bytes differ. The expected sha256 are the release's, written here, not read from the tree.
# Usage: check_kokkos_source.sh SOURCE_DIR
set -u
root="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tarball_sha=d8a8a5e15331c46b900d3f75d2b62b0b32f067b126a4a75d465224c899765084
patch_sha=a25ac26c0e52f2d83217e7a72c8e652aef410ca3f26a19f42bfbc52700d65c88
status=0

lookup() {  # lookup TREE [MINIGPU_THIRD_PARTY]: prints "SOURCE PATCH" as kokkos_build.sh finds them
  env -u KOKKOS_SRC -u KOKKOS_PATCH ${2:+MINIGPU_THIRD_PARTY="$2"} bash -c \
    'source "$0/scripts/common.sh"; source "$0/scripts/gpu/kokkos_build.sh"; src="$(kokkos_source)" || exit 1
     echo "$src $(kokkos_patch)"' "$1"
}

expect_found() {  # expect_found NAME TREE
  local found src patch
  if ! found="$(lookup "$2" 2>"$tmp/$1.err")"; then
    echo "FAIL $1: no Kokkos source found: $(cat "$tmp/$1.err")"; status=1; return
  fi
  read -r src patch <<<"$found"
  [ "$src" = "$2/third_party/kokkos-4.6.01.tar.gz" ] || { echo "FAIL $1: source $src, not $2/third_party's"; status=1; }
  [ "$patch" = "$2/third_party/kokkos-4.6.01-cuda13.patch" ] || { echo "FAIL $1: patch $patch"; status=1; }
  [ "$(sha256sum "$src" | cut -c1-64)" = "$tarball_sha" ] || { echo "FAIL $1: tarball checksum"; status=1; }
  [ "$(sha256sum "$patch" | cut -c1-64)" = "$patch_sha" ] || { echo "FAIL $1: patch checksum"; status=1; }
  echo "$1: $src (sha256 $tarball_sha)"
}

expect_found checkout "$root"
# A clone with no ../shared beside it: what a user outside this layout has.
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  git clone -q "$root" "$tmp/lonely/clone" || { echo "FAIL: git clone"; status=1; }
  [ ! -e "$tmp/lonely/shared" ] && expect_found clone "$tmp/lonely/clone"
else
  echo "no git checkout at $root: the clone case is not run"
fi
# A copy whose tarball lost a byte is refused, naming the file and both checksums.
mkdir -p "$tmp/tampered"
cp "$root"/third_party/kokkos-4.6.01* "$tmp/tampered/"
truncate -s -1 "$tmp/tampered/kokkos-4.6.01.tar.gz"
if lookup "$root" "$tmp/tampered" >/dev/null 2>"$tmp/tampered.err"; then
  echo "FAIL tampered: a tarball with a wrong checksum was accepted"; status=1
elif ! grep -q "kokkos-4.6.01.tar.gz: sha256 .*expected $tarball_sha" "$tmp/tampered.err"; then
  echo "FAIL tampered: refused without naming the checksum: $(cat "$tmp/tampered.err")"; status=1
else
  echo "tampered: refused ($(head -n 1 "$tmp/tampered.err"))"
fi
exit $status
