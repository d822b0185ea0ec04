// The environment check and the rank-to-GPU binding that main runs before Kokkos.
#include "app/job_setup.hpp"

#include "comm/collectives.hpp"
#include "core/backend.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/fault_injection.hpp"
#include "core/host_threads.hpp"

namespace minigpu {

EnvironmentCheck check_environment_everywhere(const comm::Communicator& world) {
  EnvironmentCheck check;
  try {
    gpus_are_emulated();
    gpu_map_from_environment();
    injected_delay_s("");  // a malformed test hook is a usage error before anything runs
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
  // Which physical GPU: its PCI bus id where the runtime says (Slurm may number each task's one
  // GPU 0), else the visible list's entry (emulated GPUs).
  std::string physical = physical_device(binding, visible);
  if (!gpus_are_emulated() && binding.device_id >= 0) {
    const std::string bus = gpu_pci_bus_id(binding.device_id);
    if (!bus.empty()) physical = bus;
  }
  node_binding_warnings(binding, comm::allgather_strings(physical, node), counts);
  binding.cpus = affinity_cpus();
  std::vector<std::vector<int>> masks;
  for (const auto& text : comm::allgather_strings(cpu_list_text(binding.cpus), node))
    masks.push_back(parse_cpu_list(text));
  binding.cpu_sharing_ranks = ranks_sharing(binding.cpus, masks);
  return binding;
}

}  // namespace minigpu
