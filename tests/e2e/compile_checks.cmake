# Included by tests/CMakeLists.txt: the checks that compile and run nothing. The sanitizer
# pass (scripts/test.sh --sanitize) leaves them out: there is nothing for ASan or UBSan to watch.

# minigpu_device_compile_check(BACKEND DEVICE): scripts/gpu/check_<BACKEND>_build.sh as the
# entry <BACKEND>_compile, skipped (77) only where its compiler is missing, and not inside a
# build for DEVICE (a Kokkos_DEVICES name), which is that check. Serial: each keeps both cores
# busy, and timed tests beside it would measure the compiler.
function(minigpu_device_compile_check backend device)
  if(NOT "${device}" IN_LIST Kokkos_DEVICES)
    add_test(NAME ${backend}_compile COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/gpu/check_${backend}_build.sh
                                             ${CMAKE_BINARY_DIR}/${backend}-compile)
    set_tests_properties(${backend}_compile PROPERTIES LABELS "compile;${backend}-compile" TIMEOUT 2700
                                                      SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
  endif()
endfunction()

# The CUDA build (library and minigpu with the cuBLAS vendor path, whose kernels every test
# calls, and the tests with device code of their own: scripts/gpu/device_units.py) through nvcc's
# device passes against a CUDA Kokkos; the same units through hipcc's device front end against a
# HIP Kokkos for gfx90a.
minigpu_device_compile_check(cuda CUDA)
minigpu_device_compile_check(hip HIP)

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

# The build compiles for this CPU (-march=native); the batches that branch on the target's vector
# width or instructions must also compile for the other end of what CI's machines span.
add_test(NAME sources_compile_for_other_cpus
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_other_cpus.py ${CMAKE_BINARY_DIR})
set_tests_properties(sources_compile_for_other_cpus PROPERTIES PROCESSORS 2 TIMEOUT 900 LABELS compile
                                                               SKIP_RETURN_CODE 77)
add_test(NAME sources_compile_for_other_cpus_self_test
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_other_cpus.py --self-test)
set_tests_properties(sources_compile_for_other_cpus_self_test PROPERTIES LABELS compile SKIP_RETURN_CODE 77)
