// The environment check and the rank-to-GPU binding that main runs before Kokkos, and the
// GPU-aware MPI check the data-moving commands run after it.
#include "app/job_setup.hpp"

#include "comm/collectives.hpp"
#include "comm/gpu_aware.hpp"
#include "core/backend.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/fault_injection.hpp"
#include "core/host_threads.hpp"

#include <cstdio>

namespace minigpu {

EnvironmentCheck check_environment_everywhere(const comm::Communicator& world) {
  EnvironmentCheck check;
  try {
    gpus_are_emulated();
    gpu_map_from_environment();
    FaultInjection::from_environment();  // a malformed test hook is a usage error before anything runs
  } catch (const InputError& e) {
    check.problem = e.what();
  }
  check.usable_everywhere = comm::all_ranks(check.problem.empty(), world);
  return check;
}

DeviceBinding bind_rank(const comm::Communicator& world) {
  const comm::Communicator node = world.split_node();
  const int gpus = gpus_are_emulated() ? emulated_gpu_count() : visible_gpu_count();
  const VisibleDevices visible = visible_devices_from_environment();
  DeviceBinding binding = plan_binding(node.rank(), node.size(), gpus, visible, gpu_map_from_environment());
  // Sharing, idle GPUs and per-task isolation are facts about the node, not one rank.
  std::vector<int> counts;
  for (const auto& text : comm::allgather_strings(std::to_string(gpus), node))
    counts.push_back(std::stoi(text));
  binding.physical_gpu = physical_device(binding, visible);
  node_binding_warnings(binding, comm::allgather_strings(binding.physical_gpu, node), counts);
  binding.cpus = affinity_cpus();
  std::vector<std::vector<int>> masks;
  for (const auto& text : comm::allgather_strings(cpu_list_text(binding.cpus), node))
    masks.push_back(parse_cpu_list(text));
  binding.cpu_sharing_ranks = ranks_sharing(binding.cpus, masks);
  return binding;
}

void confirm_gpu_aware_mpi(const comm::Communicator& world) {
  const std::string unconfirmed = comm::confirm_device_memory_support(world);
  if (world.rank() == 0 && !unconfirmed.empty()) {
    // One write: ranks share the terminal.
    std::fputs(("minigpu: warning: GPU-aware MPI: " + unconfirmed + "\n").c_str(), stderr);
    std::fflush(stderr);
  }
}

}  // namespace minigpu
