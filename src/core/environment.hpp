// Facts about the machine and the Kokkos build, gathered for reports and run records.
#pragma once

#include "core/backend.hpp"
#include "core/device.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace minigpu {

struct HostInfo {
  std::string hostname;
  std::string cpu_model;
  int logical_cores = 0;
  std::uint64_t memory_bytes = 0;
  std::optional<std::uint64_t> available_bytes;  ///< MemAvailable (/proc/meminfo), where known
};

/// One device of this process as a report shows it.
struct DeviceInfo {
  Device device;
  std::string name;
  std::uint64_t memory_bytes = 0;
  std::optional<std::uint64_t> free_bytes;  ///< where the runtime says
  std::string compute_capability;           ///< empty when not applicable
  bool emulated = false;
};

/// Everything `minigpu devices` reports: the chapter's cells plus an nvidia-smi-like table.
struct DeviceReport {
  std::string kokkos_version;
  std::vector<std::string> kokkos_backends;
  std::string default_execution_space;
  HostInfo host;
  int visible_gpus = 0;  ///< GPUs the hardware shows (before one-per-process binding)
  std::vector<DeviceInfo> gpus;
  int num_gpus = 0;
  Device try_gpu_0;
  Device try_gpu_10;
  std::vector<Device> try_all_gpus;
  bool emulated = false;
};

HostInfo host_info();
/// Memory a tensor on `d` can use: the GPU's for a real GPU, else the host's.
std::uint64_t device_memory_bytes(Device d);
/// Gathers the report; Kokkos must be initialised.
DeviceReport device_report();

}  // namespace minigpu
