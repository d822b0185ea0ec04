// Whether MPI may be handed device memory directly (GPU-aware MPI), and so which path a
// transfer of device data takes: staged through host memory, or direct.
#pragma once

#include "comm/communicator.hpp"
#include "core/device.hpp"

#include <string>

namespace minigpu::comm {

enum class CommPath { staged, direct };

/// "staged" or "direct".
std::string to_string(CommPath path);

/// True when the MPI library says at run time that it accepts this build's GPU memory (Open
/// MPI's CUDA or ROCm query, or Cray MPICH with MPICH_GPU_SUPPORT_ENABLED=1); false when it
/// says no or has no way to say.
bool mpi_accepts_device_memory();

/// One line on how mpi_accepts_device_memory() got its answer, for messages.
std::string describe_mpi_device_support();

/// Collective over `comm`, once, after Kokkos starts (main). Where the MPI says it takes this
/// build's device memory, checks that it does (probe_transfer) on every rank; if it does
/// not, or some rank's MPI says no, MPI is taken to be host-only from then on and the reason is
/// returned for a warning ("" otherwise, and always on host builds and emulated GPUs).
std::string confirm_device_memory_support(const Communicator& comm);

/// True when buffers on `d` can go to MPI as they are: always for memory that is host
/// memory (cpu, emulated GPUs), else only with a GPU-aware MPI.
bool can_pass_directly(Device d);

/// The `gpu_aware_mpi` setting resolved for buffers on `d`: "auto" is direct when possible,
/// "on" is direct, "off" is staged. Throws std::invalid_argument, saying why, when "on"
/// cannot be honoured or the setting is none of the three.
CommPath choose_comm_path(const std::string& setting, Device d);

}  // namespace minigpu::comm
