# MPI: the one FindMPI finds (MPI_CXX_COMPILER chooses: mpicxx.openmpi, mpicxx.mpich, a site's
# Cray wrapper), and the launcher that belongs to it. Sets MINIGPU_MPI_FLAVOUR to openmpi, mpich
# or other. Where several MPIs are installed (Debian's alternatives, module systems) the
# `mpiexec` on the PATH can be another MPI's than the one linked: an MPICH build under Open MPI's
# mpiexec starts N singletons, each rank 0 of 1. So the launcher is checked against the library.
find_package(MPI REQUIRED COMPONENTS CXX)
if(MPI_CXX_LIBRARIES MATCHES "openmpi|libmpi_cxx")
  set(MINIGPU_MPI_FLAVOUR openmpi)
elseif(MPI_CXX_LIBRARIES MATCHES "mpich")
  set(MINIGPU_MPI_FLAVOUR mpich)
else()
  set(MINIGPU_MPI_FLAVOUR other)
endif()
get_filename_component(_minigpu_mpiexec_real "${MPIEXEC_EXECUTABLE}" REALPATH)
if(MINIGPU_MPI_FLAVOUR STREQUAL "mpich" AND _minigpu_mpiexec_real MATCHES "openmpi|orterun")
  find_program(MINIGPU_MPICH_MPIEXEC NAMES mpiexec.mpich mpiexec.hydra)
  if(MINIGPU_MPICH_MPIEXEC)
    set(MPIEXEC_EXECUTABLE "${MINIGPU_MPICH_MPIEXEC}" CACHE FILEPATH "mpiexec of the MPI linked" FORCE)
  endif()
elseif(MINIGPU_MPI_FLAVOUR STREQUAL "openmpi" AND _minigpu_mpiexec_real MATCHES "mpich|hydra")
  find_program(MINIGPU_OPENMPI_MPIEXEC NAMES mpiexec.openmpi mpirun.openmpi)
  if(MINIGPU_OPENMPI_MPIEXEC)
    set(MPIEXEC_EXECUTABLE "${MINIGPU_OPENMPI_MPIEXEC}" CACHE FILEPATH "mpiexec of the MPI linked" FORCE)
  endif()
endif()
message(STATUS "MPI: ${MINIGPU_MPI_FLAVOUR} (standard ${MPI_CXX_VERSION}), launched by ${MPIEXEC_EXECUTABLE}")
