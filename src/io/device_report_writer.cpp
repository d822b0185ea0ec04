// Formats the device report; the facts come from core/environment.
#include "io/device_report_writer.hpp"

#include "io/format.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace minigpu::io {
namespace {

std::string device_list(const std::vector<Device>& devices) {
  std::vector<std::string> names;
  names.reserve(devices.size());
  for (Device d : devices) names.push_back(describe(d));
  return bracketed(names);
}

}  // namespace

void write_device_report(std::ostream& os, const DeviceReport& r, int mpi_ranks) {
  os << "miniGPU device report\n"
     << "  Kokkos " << r.kokkos_version << ", backends " << bracketed(r.kokkos_backends)
     << ", default execution space " << r.default_execution_space << '\n'
     << "  host " << r.host.hostname << ": " << r.host.cpu_model << ", " << r.host.logical_cores
     << " logical cores, " << human_bytes(r.host.memory_bytes) << " memory\n"
     << "  MPI ranks " << mpi_ranks << "; GPUs visible to the hardware " << r.visible_gpus << "\n\n";

  const auto free_text = [](const std::optional<std::uint64_t>& bytes) {
    return bytes ? human_bytes(*bytes) : std::string("-");
  };
  os << "  " << std::left << std::setw(20) << "device" << std::setw(48) << "name" << std::setw(12) << "total"
     << std::setw(12) << "free"
     << "compute capability\n";
  os << "  " << std::setw(20) << "cpu" << std::setw(48) << r.host.cpu_model << std::setw(12)
     << human_bytes(r.host.memory_bytes) << std::setw(12) << free_text(r.host.available_bytes) << "-\n";
  for (const DeviceInfo& g : r.gpus) {
    os << "  " << std::setw(20) << describe(g.device) << std::setw(48) << g.name << std::setw(12)
       << human_bytes(g.memory_bytes) << std::setw(12) << free_text(g.free_bytes)
       << (g.compute_capability.empty() ? "-" : g.compute_capability) << '\n';
  }
  if (r.gpus.empty()) os << "  (no GPU: every device falls back to the cpu)\n";
  if (r.emulated) {
    os << "  note: GPUs are emulated in host memory (MINIGPU_EMULATE_GPUS); timings are the host's\n";
  }
  os << std::right << '\n'
     << "  cpu()           = cpu\n"
     << "  gpu(" << std::max(0, r.num_gpus - 1) << ")          = "
     << (r.num_gpus > 0 ? describe(r.try_all_gpus.back())
                        : "gpu:0, which this process does not have (using it throws DeviceNotFoundError)")
     << '\n'
     << "  num_gpus()      = " << r.num_gpus << '\n'
     << "  try_gpu()       = " << describe(r.try_gpu_0) << '\n'
     << "  try_gpu(10)     = " << describe(r.try_gpu_10) << '\n'
     << "  try_all_gpus()  = " << device_list(r.try_all_gpus) << '\n';
}

}  // namespace minigpu::io
