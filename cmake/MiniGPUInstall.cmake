# `cmake --install`: bin/minigpu and share/minigpu/{inputs,schema,scripts,slurm}. The binary
# finds the share directory relative to itself (src/app/data_paths.cpp); the Slurm scripts find
# the binary through slurm/install_layout.sh, written here with the same relative path.
set(MINIGPU_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/minigpu)
# A Kokkos (or other library) outside the system's directories, e.g. the CUDA Kokkos that
# scripts/gpu/build_cuda.sh caches, stays findable from the installed binary.
set_target_properties(minigpu PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/inputs/ DESTINATION ${MINIGPU_INSTALL_DATADIR}/inputs)
install(FILES ${PROJECT_SOURCE_DIR}/docs/run.schema.json DESTINATION ${MINIGPU_INSTALL_DATADIR}/schema)
# What an installed minigpu runs (--plot) and what the Slurm scripts source.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/plot.py ${PROJECT_SOURCE_DIR}/scripts/plot_model.py
                 ${PROJECT_SOURCE_DIR}/scripts/report.py
        DESTINATION ${MINIGPU_INSTALL_DATADIR}/scripts)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/signal_exit.sh ${PROJECT_SOURCE_DIR}/scripts/system_python.py DESTINATION ${MINIGPU_INSTALL_DATADIR}/scripts)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scripts/plotlib ${PROJECT_SOURCE_DIR}/scripts/reportlib DESTINATION ${MINIGPU_INSTALL_DATADIR}/scripts
        PATTERN __pycache__ EXCLUDE)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/slurm/minigpu.sbatch ${PROJECT_SOURCE_DIR}/scripts/slurm/sweep.sh
                 ${PROJECT_SOURCE_DIR}/scripts/slurm/select_gpu.sh
        DESTINATION ${MINIGPU_INSTALL_DATADIR}/slurm)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/slurm/find_binary.sh DESTINATION ${MINIGPU_INSTALL_DATADIR}/slurm)

file(RELATIVE_PATH _minigpu_bin_from_data ${CMAKE_INSTALL_FULL_DATADIR}/minigpu ${CMAKE_INSTALL_FULL_BINDIR})
file(WRITE ${CMAKE_BINARY_DIR}/generated/install_layout.sh
     "# Written by cmake/MiniGPUInstall.cmake: this install's bindir relative to share/minigpu.\n"
     "MINIGPU_BINDIR_FROM_DATA=\"${_minigpu_bin_from_data}\"\n")
install(FILES ${CMAKE_BINARY_DIR}/generated/install_layout.sh DESTINATION ${MINIGPU_INSTALL_DATADIR}/slurm)
