// Open MPI answers through its extension header; other MPIs (MPICH, without a query) are
// taken to be host-only, so device data is staged unless the user insists.
#include "comm/gpu_aware.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <stdexcept>

namespace minigpu::comm {

std::string to_string(CommPath path) { return path == CommPath::direct ? "direct" : "staged"; }

bool mpi_accepts_device_memory() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

std::string describe_mpi_device_support() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return std::string("MPIX_Query_cuda_support() = ") + (mpi_accepts_device_memory() ? "1" : "0") +
         " (built with MPIX_CUDA_AWARE_SUPPORT = " + std::to_string(MPIX_CUDA_AWARE_SUPPORT) + ")";
#else
  return "this MPI has no CUDA-awareness query (no MPIX_CUDA_AWARE_SUPPORT in <mpi-ext.h>)";
#endif
}

bool can_pass_directly(Device d) { return uses_host_memory(d) || mpi_accepts_device_memory(); }

CommPath choose_comm_path(const std::string& setting, Device d) {
  if (setting == "off") return CommPath::staged;
  if (setting == "auto") return can_pass_directly(d) ? CommPath::direct : CommPath::staged;
  if (setting != "on")
    throw std::invalid_argument("gpu_aware_mpi must be auto, on or off, not '" + setting + "'");
  if (!can_pass_directly(d)) {
    throw std::invalid_argument("is 'on' but MPI cannot take memory of " + describe(d) + ": " +
                                describe_mpi_device_support());
  }
  return CommPath::direct;
}

}  // namespace minigpu::comm
