// Host facts from /proc and sysconf; GPU facts from the backend layer.
#include "core/environment.hpp"

#include <unistd.h>

#include <fstream>
#include <thread>

namespace minigpu {
namespace {

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

}  // namespace

HostInfo host_info() {
  HostInfo info;
  char name[256] = {};
  info.hostname = gethostname(name, sizeof(name) - 1) == 0 ? name : "unknown";
  info.cpu_model = cpu_model_name();
  info.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) info.memory_bytes = static_cast<std::uint64_t>(pages) * page_size;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") info.available_bytes = kib * 1024;
    meminfo.ignore(256, '\n');
  }
  return info;
}

std::uint64_t device_memory_bytes(Device d) {
  if (uses_host_memory(d)) return host_info().memory_bytes;
  return gpu_properties(active_gpu_id()).memory_bytes;
}

DeviceReport device_report() {
  DeviceReport r;
  r.kokkos_version = kokkos_version_string();
  r.kokkos_backends = kokkos_backends();
  r.default_execution_space = Kokkos::DefaultExecutionSpace::name();
  r.host = host_info();
  r.visible_gpus = visible_gpu_count();
  r.emulated = gpus_are_emulated();
  for (Device d : try_all_gpus()) {
    DeviceInfo info;
    info.device = d;
    info.emulated = r.emulated;
    if (r.emulated) {
      info.name = "emulated GPU (host memory, " + std::string(HostExecSpace::name()) + ")";
      info.memory_bytes = r.host.memory_bytes;
      info.free_bytes = r.host.available_bytes;
    } else {
      const GpuProperties p = gpu_properties(active_gpu_id());
      info.name = p.name + " (device " + std::to_string(p.id) + ")";
      info.memory_bytes = p.memory_bytes;
      info.free_bytes = p.free_bytes;
      info.compute_capability = p.compute_capability;
    }
    r.gpus.push_back(info);
  }
  r.num_gpus = num_gpus();
  r.try_gpu_0 = try_gpu();
  r.try_gpu_10 = try_gpu(10);
  r.try_all_gpus = try_all_gpus();
  return r;
}

}  // namespace minigpu
