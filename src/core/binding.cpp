// Rank-to-device binding rules; the node-local rank itself comes from the comm layer.
#include "core/binding.hpp"

#include "core/backend.hpp"
#include "core/backend_blas.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/host_threads.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace minigpu {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  std::size_t start = 0;
  for (std::size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
    parts.push_back(text.substr(start, comma - start));
  parts.push_back(text.substr(start));
  return parts;
}

/// The index an entry names, or -1 for anything but plain digits (a UUID, "", "-1").
int index_of(const std::string& entry) {
  if (entry.empty() || entry.size() > 6 || entry.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoi(entry);
}

std::string joined_ranks(const std::vector<int>& ranks) {
  std::string list;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    list += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  return list;
}

/// The positions of each non-empty key: ranks (in the order the keys came) that name one thing.
std::map<std::string, std::vector<int>> ranks_by_key(const std::vector<std::string>& keys) {
  std::map<std::string, std::vector<int>> ranks_of;
  for (std::size_t r = 0; r < keys.size(); ++r)
    if (!keys[r].empty()) ranks_of[keys[r]].push_back(static_cast<int>(r));
  return ranks_of;
}

}  // namespace

VisibleDevices visible_devices_from_environment() {
  // HIP reads ROCR_VISIBLE_DEVICES first and HIP_VISIBLE_DEVICES within it; CUDA only its own.
  std::vector<const char*> names{"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"};
  if (kGpuRuntime == GpuRuntime::cuda) names = {"CUDA_VISIBLE_DEVICES"};
  if (kGpuRuntime == GpuRuntime::hip) names = {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"};
  for (const char* name : names) {
    if (const char* value = std::getenv(name)) return {name, split_commas(value)};
  }
  return {};
}

int visible_emulated_gpus(int n, const VisibleDevices& visible) {
  if (visible.variable.empty()) return n;
  int seen = 0;
  for (const auto& id : visible.ids) {
    const int index = index_of(id);
    if (index < 0 || index >= n) break;
    ++seen;
  }
  return seen;
}

std::vector<int> gpu_map_from_environment() {
  const char* text = std::getenv("MINIGPU_GPU_MAP");
  if (text == nullptr || *text == '\0') return {};
  std::vector<int> map;
  for (const auto& entry : split_commas(text)) {
    map.push_back(index_of(entry));
    if (map.back() < 0) {
      throw InputError("MINIGPU_GPU_MAP='" + std::string(text).substr(0, 60) +
                       "' must be GPU indices separated by commas, one per node-local rank (as Slurm's "
                       "--gpu-bind=map_gpu), e.g. 4,5,2,3,6,7,0,1");
    }
  }
  return map;
}

DeviceChoice choose_device(int local_rank, int visible_gpus, const VisibleDevices& visible,
                           const std::vector<int>& map) {
  DeviceChoice choice;
  if (visible_gpus <= 0 || local_rank < 0) return choice;
  if (visible_gpus == 1 && !visible.variable.empty()) {
    std::string list;
    for (const auto& id : visible.ids) list += (list.empty() ? "" : ",") + id;
    choice.device_id = 0;
    choice.rule = "launcher: " + visible.variable + "=" + list;
    return choice;
  }
  if (!map.empty()) {
    const std::size_t at = static_cast<std::size_t>(local_rank) % map.size();
    choice.device_id = map[at] % visible_gpus;
    choice.rule = "map: MINIGPU_GPU_MAP[" + std::to_string(at) + "]=" + std::to_string(map[at]);
    if (map[at] >= visible_gpus) {
      choice.warning = "MINIGPU_GPU_MAP names GPU " + std::to_string(map[at]) + " but this process sees " +
                       std::to_string(visible_gpus) + ": took GPU " + std::to_string(choice.device_id);
    }
    return choice;
  }
  choice.device_id = select_device_id(local_rank, visible_gpus);
  choice.rule = "local rank: " + std::to_string(local_rank) + " mod " + std::to_string(visible_gpus);
  return choice;
}

int select_device_id(int local_rank, int visible_gpus) {
  return visible_gpus > 0 && local_rank >= 0 ? local_rank % visible_gpus : -1;
}

DeviceBinding plan_binding(int local_rank, int local_size, int visible_gpus, const VisibleDevices& visible,
                           const std::vector<int>& map) {
  DeviceBinding b;
  b.local_rank = local_rank;
  b.local_size = local_size;
  b.visible_gpus = visible_gpus;
  const DeviceChoice choice = choose_device(local_rank, visible_gpus, visible, map);
  b.device_id = choice.device_id;
  b.rule = choice.rule;
  if (!choice.warning.empty()) b.warnings.push_back(choice.warning);
  // From this rank's counts alone a guess only where every rank sees every GPU; a launcher's
  // or a map's layout is judged from the whole node (node_binding_warnings).
  if (b.rule.rfind("local rank", 0) != 0) return b;
  if (local_size > visible_gpus) {
    b.warnings.push_back(std::to_string(local_size) + " ranks share " + std::to_string(visible_gpus) +
                         " GPU(s) on this node: ranks will compete for devices");
  }
  if (visible_gpus > local_size) {
    b.warnings.push_back(std::to_string(visible_gpus - local_size) + " of " + std::to_string(visible_gpus) +
                         " GPU(s) on this node stay idle (" + std::to_string(local_size) + " rank(s))");
  }
  return b;
}

std::string physical_device(const DeviceBinding& b, const VisibleDevices& visible) {
  if (b.device_id < 0) return "";
  // The PCI bus id names the GPU itself (Slurm may number each task's one GPU 0, and visible
  // lists can name one GPU by index or UUID); emulated GPUs have none.
  if (!gpus_are_emulated()) {
    const std::string bus = gpu_pci_bus_id(b.device_id);
    if (!bus.empty()) return bus;
  }
  const auto at = static_cast<std::size_t>(b.device_id);
  return !visible.variable.empty() && at < visible.ids.size() ? visible.ids[at] : std::to_string(b.device_id);
}

void node_binding_warnings(DeviceBinding& b, const std::vector<std::string>& physical,
                           const std::vector<int>& visible_counts) {
  std::vector<std::string> kept;  // the map's own warning stays
  for (const auto& w : b.warnings)
    if (w.rfind("MINIGPU_GPU_MAP", 0) == 0) kept.push_back(w);
  b.warnings = kept;
  const auto ranks_of = ranks_by_key(physical);
  std::string shared;
  for (const auto& [gpu, ranks] : ranks_of) {
    if (ranks.size() > 1)
      shared += (shared.empty() ? "" : "; ") + ("local ranks " + joined_ranks(ranks) + " on GPU " + gpu);
  }
  if (!shared.empty())
    b.warnings.push_back("ranks share GPUs on this node (" + shared + "): they will compete for them");
  const bool same_count =
      !visible_counts.empty() && std::all_of(visible_counts.begin(), visible_counts.end(),
                                             [&](int n) { return n == visible_counts.front(); });
  const int seen = same_count ? visible_counts.front() : 0;
  b.isolated = physical.size() > 1 && seen == 1 && ranks_of.size() == physical.size();
  if (same_count && !b.isolated && seen > static_cast<int>(ranks_of.size())) {
    b.warnings.push_back(std::to_string(seen - static_cast<int>(ranks_of.size())) + " of " +
                         std::to_string(seen) + " GPU(s) on this node stay idle (" +
                         std::to_string(physical.size()) + " rank(s))");
  }
}

std::string isolation_warning(const DeviceBinding& b, bool mpi_takes_device_memory) {
  if (!b.isolated || !mpi_takes_device_memory) return "";
  return "GPU-aware MPI is on, but each rank on this node sees only its own GPU (" + b.rule +
         "): MPI cannot map another rank's GPU memory (CUDA IPC: cuIpcOpenMemHandle fails), so it "
         "stages through the host or fails; for GPU-aware runs leave every GPU visible to every rank "
         "(no --gpus-per-task or --gpu-bind, no wrapper) and let miniGPU bind by local rank or "
         "MINIGPU_GPU_MAP";
}

std::vector<std::string> binding_warnings(const DeviceBinding& b) {
  std::vector<std::string> warnings = b.warnings;
  const std::string threads = host_thread_oversubscription(
      static_cast<int>(b.cpus.size()), b.cpu_sharing_ranks, HostExecSpace().concurrency());
  if (!threads.empty()) warnings.push_back(threads);
  const std::string pinned = pinned_blas_threads(host_blas_info().threads);
  if (!pinned.empty()) warnings.push_back(pinned);
  return warnings;
}

int bound_device_id(const DeviceBinding& binding) {
  if (gpus_are_emulated()) {
    // The binding's own choice when it was made for these emulated GPUs.
    return binding.device_id >= 0 && binding.visible_gpus == emulated_gpu_count()
               ? binding.device_id
               : select_device_id(binding.local_rank, emulated_gpu_count());
  }
  return kHasGpuBackend && num_gpus() > 0 ? active_gpu_id() : -1;
}

std::string physical_gpu_key(const std::string& host, const DeviceBinding& binding) {
  if (!kHasGpuBackend || gpus_are_emulated() || binding.physical_gpu.empty()) return "";
  return host + "|" + binding.physical_gpu;
}

std::string shared_gpu_reason(const std::vector<std::string>& keys) {
  std::string reason;
  for (const auto& [key, ranks] : ranks_by_key(keys)) {
    if (ranks.size() < 2) continue;
    const std::size_t bar = key.find('|');
    reason += std::string(reason.empty() ? "" : "; ") + "ranks " + joined_ranks(ranks) + " share one GPU (" +
              key.substr(0, bar) + ", GPU " + key.substr(bar + 1) + ")";
  }
  return reason;
}

}  // namespace minigpu
