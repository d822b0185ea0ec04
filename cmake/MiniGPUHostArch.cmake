# -march=native for host code when MINIGPU_NATIVE_ARCH is on and the compiler takes it; Kokkos's
# nvcc_wrapper hands flags it does not know to the host compiler. MINIGPU_HOST_FLAGS is what
# run.json records: the build type's flags plus these.
set(MINIGPU_ARCH_FLAGS "")
if(MINIGPU_NATIVE_ARCH)
  include(CheckCXXCompilerFlag)
  if("CUDA" IN_LIST Kokkos_DEVICES)
    set(MINIGPU_ARCH_FLAGS -march=native)
  else()
    check_cxx_compiler_flag(-march=native MINIGPU_HAS_MARCH_NATIVE)
    if(MINIGPU_HAS_MARCH_NATIVE)
      set(MINIGPU_ARCH_FLAGS -march=native)
    endif()
  endif()
endif()
add_compile_options(${MINIGPU_ARCH_FLAGS})
string(TOUPPER "${CMAKE_BUILD_TYPE}" _minigpu_build_type)
string(JOIN " " MINIGPU_HOST_FLAGS ${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_minigpu_build_type}} ${MINIGPU_ARCH_FLAGS})
string(STRIP "${MINIGPU_HOST_FLAGS}" MINIGPU_HOST_FLAGS)
set(MINIGPU_HOST_COMPILER "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/minigpu_build_info.hpp.in ${CMAKE_BINARY_DIR}/generated/minigpu_build_info.hpp
               @ONLY)
