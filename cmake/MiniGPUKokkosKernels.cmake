# KokkosKernels is used only when it was built against the very Kokkos this build found:
# the same KOKKOS_VERSION and the same enabled backends. Anything else (Debian's host-only
# Trilinos KokkosKernels next to a CUDA Kokkos 4.x, say) would put two Kokkos versions into
# one binary, so it is ignored with a one-line note. Sets MINIGPU_KOKKOSKERNELS_TARGET.
set(MINIGPU_KOKKOSKERNELS_TARGET "")

# "<version>;<backend>;<backend>..." read from a KokkosCore_config.h.
function(_minigpu_kokkos_signature header out)
  file(STRINGS "${header}" _version REGEX "^#define KOKKOS_VERSION [0-9]+")
  file(STRINGS "${header}" _backends REGEX "^#define KOKKOS_ENABLE_(SERIAL|OPENMP|THREADS|CUDA|HIP|SYCL|OPENMPTARGET)$")
  string(REGEX REPLACE "^#define KOKKOS_VERSION ([0-9]+).*" "\\1" _version "${_version}")
  string(REPLACE "#define KOKKOS_ENABLE_" "" _backends "${_backends}")
  list(SORT _backends)
  set(${out} "${_version};${_backends}" PARENT_SCOPE)
endfunction()

# The KokkosCore_config.h found first in a list of include directories, or "".
function(_minigpu_find_kokkos_config dirs out)
  set(_found "")
  foreach(_dir IN LISTS dirs)
    if(NOT _found AND NOT _dir MATCHES "^\\$<" AND EXISTS "${_dir}/KokkosCore_config.h")
      set(_found "${_dir}/KokkosCore_config.h")
    endif()
  endforeach()
  set(${out} "${_found}" PARENT_SCOPE)
endfunction()

get_target_property(_minigpu_kokkos_dirs Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
_minigpu_find_kokkos_config("${_minigpu_kokkos_dirs};${Kokkos_INCLUDE_DIRS}" _minigpu_kokkos_header)

find_package(KokkosKernels QUIET)
if(KokkosKernels_FOUND AND _minigpu_kokkos_header)
  _minigpu_kokkos_signature("${_minigpu_kokkos_header}" _minigpu_kokkos_sig)
  if(TARGET trilinos_kokkoskernels)
    # Trilinos packaging: KokkosKernels compiles against Trilinos's own KokkosCore headers.
    set(_minigpu_kk_target trilinos_kokkoskernels)
    _minigpu_find_kokkos_config("${KokkosKernels_INCLUDE_DIRS}" _minigpu_kk_header)
  elseif(TARGET Kokkos::kokkoskernels)
    # Standalone KokkosKernels records the Kokkos it was built with in its config file.
    set(_minigpu_kk_target Kokkos::kokkoskernels)
    set(_minigpu_kk_header "")
    file(STRINGS "${KokkosKernels_DIR}/KokkosKernelsConfig.cmake" _minigpu_kk_dep
         REGEX "find_dependency\\(Kokkos HINTS")
    string(REGEX REPLACE ".*HINTS +([^ )]+).*" "\\1" _minigpu_kk_kokkos_dir "${_minigpu_kk_dep}")
    if(_minigpu_kk_kokkos_dir AND EXISTS "${_minigpu_kk_kokkos_dir}")
      get_filename_component(_minigpu_kk_prefix "${_minigpu_kk_kokkos_dir}/../../.." ABSOLUTE)
      file(GLOB_RECURSE _minigpu_kk_header "${_minigpu_kk_prefix}/include/KokkosCore_config.h")
      list(GET _minigpu_kk_header 0 _minigpu_kk_header)
    endif()
  endif()
  set(_minigpu_kk_sig "unknown")
  if(_minigpu_kk_header)
    _minigpu_kokkos_signature("${_minigpu_kk_header}" _minigpu_kk_sig)
  endif()
  if(_minigpu_kk_target AND _minigpu_kk_sig STREQUAL _minigpu_kokkos_sig)
    set(MINIGPU_KOKKOSKERNELS_TARGET ${_minigpu_kk_target})
    message(STATUS "KokkosKernels: using ${KokkosKernels_DIR} (built against this Kokkos: ${_minigpu_kokkos_sig})")
  else()
    message(STATUS "KokkosKernels: ignoring ${KokkosKernels_DIR}: built against Kokkos "
                   "'${_minigpu_kk_sig}', this build uses '${_minigpu_kokkos_sig}'")
  endif()
endif()
