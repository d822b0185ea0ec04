// Rank-to-device binding rules; the node-local rank itself comes from the comm layer.
#include "core/binding.hpp"

#include "core/backend.hpp"
#include "core/backend_blas.hpp"
#include "core/device.hpp"
#include "core/host_threads.hpp"

#include <cstdlib>
#include <map>

namespace minigpu {
int select_device_id(int local_rank, int visible_gpus) {
  return visible_gpus > 0 && local_rank >= 0 ? local_rank % visible_gpus : -1;
}

DeviceBinding plan_binding(int local_rank, int local_size, int visible_gpus) {
  DeviceBinding b;
  b.local_rank = local_rank;
  b.local_size = local_size;
  b.visible_gpus = visible_gpus;
  b.device_id = select_device_id(local_rank, visible_gpus);
  if (visible_gpus > 0 && local_size > visible_gpus) {
    b.warnings.push_back(std::to_string(local_size) + " ranks share " + std::to_string(visible_gpus) +
                         " GPU(s) on this node: ranks will compete for devices");
  }
  if (visible_gpus > local_size) {
    b.warnings.push_back(std::to_string(visible_gpus - local_size) + " of " + std::to_string(visible_gpus) +
                         " GPU(s) on this node stay idle (" + std::to_string(local_size) + " rank(s))");
  }
  return b;
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
  if (gpus_are_emulated()) return select_device_id(binding.local_rank, emulated_gpu_count());
  return kHasGpuBackend && num_gpus() > 0 ? active_gpu_id() : -1;
}

std::string physical_gpu_key(const std::string& host) {
  if (!kHasGpuBackend || gpus_are_emulated() || num_gpus() == 0) return "";
  std::string visible;
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}) {
    if (const char* v = std::getenv(name)) visible += std::string(name) + "=" + v + ";";
  }
  return host + "|" + visible + "|" + std::to_string(active_gpu_id());
}

std::string shared_gpu_reason(const std::vector<std::string>& keys) {
  std::map<std::string, std::vector<int>> ranks_of;
  for (std::size_t r = 0; r < keys.size(); ++r)
    if (!keys[r].empty()) ranks_of[keys[r]].push_back(static_cast<int>(r));
  std::string reason;
  for (const auto& [key, ranks] : ranks_of) {
    if (ranks.size() < 2) continue;
    std::string list;
    for (std::size_t i = 0; i < ranks.size(); ++i)
      list += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
    reason += std::string(reason.empty() ? "" : "; ") + "ranks " + list + " share one GPU (" +
              key.substr(0, key.find('|')) + ", device " + key.substr(key.rfind('|') + 1) + ")";
  }
  return reason;
}

}  // namespace minigpu
