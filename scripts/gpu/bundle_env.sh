# Makes a bundle from scripts/gpu/gpu_bundle.sh usable on a node without a package registry:
#   source scripts/gpu/bundle_env.sh DIR
# unpacks DIR/debs with dpkg -x into DIR/prefix (once per MANIFEST) and exports the paths that
# put its MPI, libraries, headers and CMake packages in reach: PATH, LD_LIBRARY_PATH,
# CMAKE_PREFIX_PATH, OPAL_PREFIX (Open MPI relocated), PMIx's plugin path, KOKKOS_SRC, KOKKOS_PATCH.
# A library the node already has (ldconfig knows its soname) is taken from the node, so older
# Debian copies never shadow newer ones for other programs; MPI, PMIx, OpenBLAS and yaml-cpp
# always come from the bundle, whose headers the build compiles against.
# Sourced, not run.

bundle_dir="$(cd "${1:?usage: source scripts/gpu/bundle_env.sh DIR}" && pwd)"
bundle_prefix="$bundle_dir/prefix"
bundle_lib="$bundle_prefix/usr/lib/x86_64-linux-gnu"

bundle_unpack() {
  local stamp="$bundle_prefix/.unpacked-$(sha256sum "$bundle_dir/MANIFEST" | cut -c1-16)"
  [ -f "$stamp" ] && return 0
  rm -rf "$bundle_prefix"
  mkdir -p "$bundle_prefix"
  local deb link target lib soname
  for deb in "$bundle_dir"/debs/*.deb; do
    dpkg-deb -x "$deb" "$bundle_prefix"
  done
  # Absolute links point at the node's / : make them point into the prefix.
  while IFS= read -r link; do
    target="$(readlink "$link")"
    ln -sfn "$bundle_prefix$target" "$link"
  done < <(find "$bundle_prefix" -type l -lname '/*')
  # What update-alternatives would have linked at install time.
  for tool in mpirun mpiexec mpicc mpicxx mpic++; do
    ln -sfn "$tool.openmpi" "$bundle_prefix/usr/bin/$tool"
  done
  for lib in libblas.so.3 liblapack.so.3 libblas.so liblapack.so libopenblas.so libopenblas.so.0; do
    [ -e "$bundle_lib/openblas-pthread/$lib" ] && ln -sfn "openblas-pthread/$lib" "$bundle_lib/$lib"
  done
  mkdir -p "$bundle_prefix/usr/include/x86_64-linux-gnu"
  ln -sfn "openblas-pthread/cblas.h" "$bundle_prefix/usr/include/x86_64-linux-gnu/cblas.h"
  # Fill gaps only: drop shared libraries whose soname the node already provides.
  while IFS= read -r lib; do
    soname="$(basename "$lib")"
    case "$soname" in
      libmpi* | libopen-* | libompi* | liboshmem* | libmca* | libpmix* | libopenblas* | libblas* | liblapack* | libscalapack* | libyaml-cpp*) continue ;;
    esac
    if ldconfig -p | grep -q "^[[:space:]]*$soname "; then
      rm -f "$lib"
    fi
  done < <(find "$bundle_lib" -maxdepth 1 -name 'lib*.so.*' \( -type f -o -type l \))
  touch "$stamp"
}

bundle_unpack
export PATH="$bundle_prefix/usr/bin:$PATH"
export LD_LIBRARY_PATH="$bundle_lib:$bundle_lib/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CMAKE_PREFIX_PATH="$bundle_prefix/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export OPAL_PREFIX="$bundle_prefix/usr"
# PMIx looks for its plugins where Debian installed them, and a node may hold another PMIx's
# there (Ubuntu 24.04: PMIx 5, whose zlib plugin fails to load into PMIx 4.2): look in the
# bundle first. PMIx ignores PMIX_MCA_mca_base_component_path here; it honours PMIX_PKGLIBDIR.
export PMIX_PKGLIBDIR="$bundle_lib/pmix2/lib/pmix"
export MPI_HOME="$bundle_lib/openmpi"
# Config files of Debian 12's packages predate CMake 4, which refuses their policy level.
export CMAKE_POLICY_VERSION_MINIMUM=3.5
# A prebuilt folder's bundle has no Kokkos source: nothing is compiled there.
for f in "$bundle_dir"/third_party/kokkos-*.tar.gz; do
  if [ -f "$f" ]; then export KOKKOS_SRC="$f"; fi
done
for f in "$bundle_dir"/third_party/kokkos-*.patch; do
  if [ -f "$f" ]; then export KOKKOS_PATCH="$f"; fi
done
