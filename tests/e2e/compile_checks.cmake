# Included by tests/CMakeLists.txt: the checks that compile and run nothing. The sanitizer
# pass (scripts/test.sh --sanitize) leaves them out: there is nothing for ASan or UBSan to watch.

# The CUDA build (library and minigpu with the cuBLAS vendor path, whose kernels every test
# calls, and the tests with device code of their own: scripts/gpu/device_units.py) through nvcc's
# device passes against a CUDA Kokkos on every run (scripts/gpu/check_cuda_build.sh):
# skipped (77) only where there is no nvcc. Not inside a CUDA build itself, which is that check.
if(NOT "CUDA" IN_LIST Kokkos_DEVICES)
  add_test(NAME cuda_compile
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/gpu/check_cuda_build.sh ${CMAKE_BINARY_DIR}/cuda-compile)
  set_tests_properties(cuda_compile PROPERTIES LABELS "compile;cuda-compile" TIMEOUT 2700 SKIP_RETURN_CODE 77
                                               RUN_SERIAL TRUE)
endif()

# The same for the HIP build (hipcc's host and device front ends, a HIP Kokkos for gfx90a):
# skipped (77) only where there is no hipcc. Serial like cuda_compile: it keeps both cores
# busy, and timed tests beside it would measure the compiler.
if(NOT "HIP" IN_LIST Kokkos_DEVICES)
  add_test(NAME hip_compile
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/gpu/check_hip_build.sh ${CMAKE_BINARY_DIR}/hip-compile)
  set_tests_properties(hip_compile PROPERTIES LABELS "compile;hip-compile" TIMEOUT 2700 SKIP_RETURN_CODE 77
                                              RUN_SERIAL TRUE)
endif()

# The build compiles in unity batches by default; every file must still compile on its own.
if(CMAKE_UNITY_BUILD)
  add_test(NAME sources_compile_alone
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_sources_alone.py ${CMAKE_BINARY_DIR})
  set_tests_properties(sources_compile_alone PROPERTIES PROCESSORS 2 TIMEOUT 900 LABELS compile)
endif()
add_test(NAME sources_compile_alone_self_test
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_sources_alone.py --self-test)
set_tests_properties(sources_compile_alone_self_test PROPERTIES LABELS compile)
add_test(NAME device_units_self_test
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/gpu/device_units.py --self-test)
set_tests_properties(device_units_self_test PROPERTIES LABELS compile)
