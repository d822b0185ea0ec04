#!/usr/bin/env bash
# Gathers, on a Debian 12 machine that reaches Debian's package registry, everything that
# scripts/gpu/gpu_check.sh --bundle DIR needs on a GPU node cut off from package registries
# where only the CUDA toolkit, CMake and a C++ compiler are installed:
#   DIR/third_party/  the Kokkos 4.6.01 source and its CUDA 13 patch (third_party/, checked against its SHA256SUMS)
#   DIR/debs/         Debian's packages for MPI, yaml-cpp, CLI11, nlohmann-json, GoogleTest
#                     and OpenBLAS, plus the libraries they load, fetched with apt-get download
#   DIR/MANIFEST      one line per package: name, version, sha256 of the .deb
# Only library packages are followed down the dependency tree, and never those every Linux
# system has (Priority required/important, libc, libstdc++): compilers, Perl and friends stay
# out, which keeps the bundle near 35 MB. gpu_check.sh unpacks it with dpkg -x into a
# private prefix; nothing is installed on the node.
#   scripts/gpu/gpu_bundle.sh DIR
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
source "$MINIGPU_ROOT/scripts/gpu/cuda_kokkos.sh"

if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
dir="$1"
MINIGPU_BUNDLE_PACKAGES=(
  libopenmpi-dev libopenmpi3 openmpi-bin openmpi-common
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libgtest-dev
  libopenblas-dev libopenblas-pthread-dev libopenblas0-pthread
  libscalapack-openmpi-dev libscalapack-openmpi2.2 libgomp1
)

mkdir -p "$dir/debs" "$dir/third_party"
src="$(kokkos_source)" || { log "error: no Kokkos source (set KOKKOS_SRC)"; exit 2; }
cp "$src" "$dir/third_party/"
patch="$(kokkos_patch)"
[ -z "$patch" ] || cp "$patch" "$dir/third_party/"

# The packages to fetch: the roots, then every library they depend on (first alternative).
packages="$(/usr/bin/python3 - "${MINIGPU_BUNDLE_PACKAGES[@]}" <<'EOF'
import re, subprocess, sys

def show(package):
    return subprocess.run(["apt-cache", "show", "--no-all-versions", package],
                          capture_output=True, text=True).stdout

def priority(text):
    m = re.search(r"^Priority: (\S+)", text, re.M)
    return m.group(1) if m else ""

def depends(text):
    for m in re.finditer(r"^(?:Pre-Depends|Depends): (.*)$", text, re.M):
        for alternatives in m.group(1).split(","):
            yield alternatives.split("|")[0].strip().split(" ")[0].split(":")[0]

base = {"libc6", "libgcc-s1", "libstdc++6"}
chosen, queue = set(), list(sys.argv[1:])
while queue:
    package = queue.pop()
    text = show(package)
    if package in chosen or not text:
        continue
    chosen.add(package)
    for dep in depends(text):
        if dep in chosen or dep in base or not dep.startswith("lib") or dep.endswith("-dev"):
            continue
        if priority(show(dep)) not in ("required", "important"):
            queue.append(dep)
print("\n".join(sorted(chosen)))
EOF
)"
# shellcheck disable=SC2086
(cd "$dir/debs" && apt-get -o APT::Sandbox::User=root download -q $packages >/dev/null)
(cd "$dir/debs" && for deb in *.deb; do
  echo "$(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) $(sha256sum "$deb" | cut -c1-64)"
done) >"$dir/MANIFEST"
log "bundle in $dir: $(wc -l <"$dir/MANIFEST") packages, $(du -sh "$dir" | cut -f1);" \
  "on the GPU node: scripts/gpu/gpu_check.sh --bundle $dir"
