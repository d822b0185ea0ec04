# The host vendor BLAS every build needs: CBLAS, from OpenBLAS where it can be found (Debian's
# libopenblas-dev). pkg-config's `openblas` first (it names the variant's own cblas.h), then
# CMake's FindBLAS with BLA_VENDOR=OpenBLAS, then any BLAS with a cblas.h beside it.
# Defines the INTERFACE target minigpu_host_blas.
if(TARGET minigpu_host_blas)
  return()
endif()
add_library(minigpu_host_blas INTERFACE)

find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(MINIGPU_OPENBLAS QUIET IMPORTED_TARGET openblas)
endif()
if(MINIGPU_OPENBLAS_FOUND)
  target_link_libraries(minigpu_host_blas INTERFACE PkgConfig::MINIGPU_OPENBLAS)
  message(STATUS "Host BLAS: OpenBLAS ${MINIGPU_OPENBLAS_VERSION} (pkg-config: ${MINIGPU_OPENBLAS_LINK_LIBRARIES})")
  return()
endif()

set(BLA_VENDOR OpenBLAS)
find_package(BLAS QUIET)
if(NOT BLAS_FOUND)
  unset(BLA_VENDOR)
  find_package(BLAS QUIET)
endif()
find_path(MINIGPU_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas openblas-pthread x86_64-linux-gnu
          x86_64-linux-gnu/openblas-pthread)
if(NOT BLAS_FOUND OR NOT MINIGPU_CBLAS_INCLUDE_DIR)
  message(FATAL_ERROR "miniGPU needs a CBLAS for its vendor matmul on the host: install OpenBLAS "
                      "(Debian: apt-get install libopenblas-dev), or point CMAKE_PREFIX_PATH at one "
                      "(BLAS found: ${BLAS_FOUND}; cblas.h: ${MINIGPU_CBLAS_INCLUDE_DIR})")
endif()
target_link_libraries(minigpu_host_blas INTERFACE ${BLAS_LIBRARIES})
target_include_directories(minigpu_host_blas INTERFACE ${MINIGPU_CBLAS_INCLUDE_DIR})
message(STATUS "Host BLAS: ${BLAS_LIBRARIES} (cblas.h in ${MINIGPU_CBLAS_INCLUDE_DIR})")
