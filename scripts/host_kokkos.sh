# The Kokkos a host build compiles against (MINIGPU_KOKKOS). Sourced after common.sh, not run.
#   openmp  (default) Kokkos 4.6.01 from third_party/ with the OpenMP host backend (and Serial),
#           built once into the cache like the GPU builds' Kokkos (scripts/gpu/kokkos_build.sh):
#           every rank computes with its share of the node's cores.
#   system  the Kokkos CMake finds on the system: Debian's Kokkos 3.4, Serial only (one thread
#           per rank), kept as the compatibility build (the sanitizer pass of scripts/test.sh).
# KOKKOS_SRC, KOKKOS_PATCH, MINIGPU_CACHE_DIR: the source and the cache, as for the GPU builds.
# Sourced, not run.

source "$MINIGPU_ROOT/scripts/gpu/kokkos_build.sh"

# No -march here: Kokkos's own library holds no hot loop, and miniGPU compiles its kernels for
# the build machine itself (MINIGPU_NATIVE_ARCH), so one cached Kokkos serves every CPU.
host_kokkos_cmake_options() {
  echo "-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON -DCMAKE_BUILD_TYPE=Release" \
    "-DCMAKE_CXX_STANDARD=17 -DCMAKE_INSTALL_LIBDIR=lib -DKokkos_ENABLE_TESTS=OFF"
}

# The configure arguments that select MINIGPU_KOKKOS's Kokkos (none for "system"), building
# the OpenMP one first where the cache has none.
host_kokkos_configure_args() {
  case "${MINIGPU_KOKKOS:-openmp}" in
    openmp)
      local prefix
      prefix="$(ensure_kokkos host-openmp g++ "$(host_kokkos_cmake_options)" "$(g++ --version | head -n 1)")" || return 1
      echo "-DKokkos_ROOT=$prefix"
      ;;
    system) ;;
    *)
      log "error: MINIGPU_KOKKOS must be openmp or system, not '$MINIGPU_KOKKOS'"
      return 2
      ;;
  esac
}
