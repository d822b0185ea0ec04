# ScaLAPACK (with its BLACS), optional: matmul_scaling's `scalapack` decomposition calls it.
# It must be built for the MPI this build uses, so the pkg-config module named after that MPI
# is looked for (Debian: scalapack-openmpi from libscalapack-openmpi-dev, scalapack-mpich from
# libscalapack-mpich-dev); its Requires bring that MPI and the BLAS/LAPACK ScaLAPACK calls.
# Defines the INTERFACE target minigpu_scalapack (empty when none) and MINIGPU_HAVE_SCALAPACK
# (ON/OFF); src/CMakeLists.txt gives both to comm/scalapack.cpp alone, and other code asks
# comm::have_scalapack(), so finding ScaLAPACK or not recompiles one file.
if(TARGET minigpu_scalapack)
  return()
endif()
option(MINIGPU_ENABLE_SCALAPACK "Use ScaLAPACK where found (matmul_scaling's scalapack decomposition)" ON)
add_library(minigpu_scalapack INTERFACE)
set(MINIGPU_HAVE_SCALAPACK OFF)
if(NOT MINIGPU_ENABLE_SCALAPACK)
  message(STATUS "ScaLAPACK: disabled (MINIGPU_ENABLE_SCALAPACK=OFF)")
  return()
endif()

# The package built for the MPI found (cmake/MiniGPUMpi.cmake).
if(MINIGPU_MPI_FLAVOUR STREQUAL "openmpi")
  set(_minigpu_scalapack_module scalapack-openmpi)
elseif(MINIGPU_MPI_FLAVOUR STREQUAL "mpich")
  set(_minigpu_scalapack_module scalapack-mpich)
else()
  set(_minigpu_scalapack_module scalapack)
endif()
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(MINIGPU_SCALAPACK QUIET IMPORTED_TARGET ${_minigpu_scalapack_module})
  # Spack's (and a source build's) ScaLAPACK installs a plain scalapack.pc, built for the MPI of
  # the same environment.
  if(NOT MINIGPU_SCALAPACK_FOUND AND NOT _minigpu_scalapack_module STREQUAL "scalapack")
    pkg_check_modules(MINIGPU_SCALAPACK QUIET IMPORTED_TARGET scalapack)
    if(MINIGPU_SCALAPACK_FOUND)
      set(_minigpu_scalapack_module scalapack)
    endif()
  endif()
endif()
if(MINIGPU_SCALAPACK_FOUND)
  # Not PkgConfig::MINIGPU_SCALAPACK: Debian's .pc files say `Requires: mpi`, the generic module
  # its alternatives point at one MPI whatever MPI this build uses, so scalapack-mpich brought
  # Open MPI's headers and its unversioned libmpi.so into an MPICH build. ScaLAPACK's own library
  # and the LAPACK/BLAS it names, with the MPI FindMPI chose.
  set(_minigpu_scalapack_libs "")
  foreach(_lib IN LISTS MINIGPU_SCALAPACK_LINK_LIBRARIES)
    get_filename_component(_name "${_lib}" NAME)
    if(NOT _name MATCHES "^lib(mpi|mpich|mpicxx|mpichcxx|mpi_cxx|open-)")
      list(APPEND _minigpu_scalapack_libs "${_lib}")
    endif()
  endforeach()
  target_link_libraries(minigpu_scalapack INTERFACE ${_minigpu_scalapack_libs} MPI::MPI_CXX)
  set(MINIGPU_HAVE_SCALAPACK ON)
  message(STATUS "ScaLAPACK: ${MINIGPU_SCALAPACK_VERSION} (pkg-config ${_minigpu_scalapack_module}: "
                 "${_minigpu_scalapack_libs})")
else()
  message(STATUS "ScaLAPACK: not found (pkg-config ${_minigpu_scalapack_module}); the scalapack "
                 "decomposition is refused (Debian: apt-get install lib${_minigpu_scalapack_module}-dev)")
endif()
