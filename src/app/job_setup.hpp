// What every rank settles before Kokkos starts: a usable environment, agreed on by all
// ranks, the GPU this rank owns and the CPUs it shares.
#pragma once

#include "comm/communicator.hpp"
#include "core/binding.hpp"

#include <string>

namespace minigpu {

/// Collective. This rank's environment problem (MINIGPU_EMULATE_GPUS, a malformed test hook)
/// or "", and whether every rank's environment is usable: the environment is each rank's own
/// (an MPMD launch may differ), so a bad value on one rank ends every rank, none waits.
struct EnvironmentCheck {
  bool usable_everywhere = true;
  std::string problem;
};
EnvironmentCheck check_environment_everywhere(const comm::Communicator& world);

/// Collective. Binds this rank to a GPU of its node (emulated GPUs like real ones: each rank
/// owns one), counts the node's ranks whose affinity masks overlap its own and returns the
/// binding, warnings included: main keeps it and hands it to the run (RunContext::binding).
DeviceBinding bind_rank(const comm::Communicator& world);

/// Collective, after Kokkos starts, in the commands that move device data (run, devices) and
/// not the others (--version, list, compare...): MPI's word on GPU memory checked by a real
/// exchange (comm::confirm_device_memory_support) before anything relies on it; rank 0 warns
/// when it does not hold.
void confirm_gpu_aware_mpi(const comm::Communicator& world);

}  // namespace minigpu
