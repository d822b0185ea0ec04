// How the MPI library answers "may I pass you GPU memory?": Open MPI through its extension
// queries (CUDA and ROCm), MPICH (4.0 on) through MPIX_GPU_query_support, Cray MPICH through the
// environment switch that turns its GPU support on. Any other MPI is taken to be host-only, so device data is
// staged unless the user insists. The GPU runtime comes from the backend layer; nothing here names a backend.
#include "comm/gpu_aware.hpp"

#include "comm/collectives.hpp"
#include "comm/gpu_aware_probe.hpp"
#include "core/backend.hpp"
#include "core/device.hpp"

#include <mpi.h>
// Open MPI's extensions header, only under Open MPI: where both MPIs are installed (MPI modules,
// Debian's alternatives) an MPICH build finds Open MPI's <mpi-ext.h> too, which does not compile
// against MPICH's <mpi.h>.
#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace minigpu::comm {
namespace {

struct Answer {
  bool accepts = false;
  std::string how;
};

/// Whether the MPI takes CUDA (cuda) or HIP/ROCm (!cuda) device memory: MPICH (4.0 on) answers
/// MPIX_GPU_query_support for either; Open MPI has an extension query per runtime it was built for.
Answer mpi_query(bool cuda) {
#if defined(MPICH_VERSION) && defined(MPIX_GPU_SUPPORT_CUDA)
  int yes = 0;
  MPIX_GPU_query_support(cuda ? MPIX_GPU_SUPPORT_CUDA : MPIX_GPU_SUPPORT_HIP, &yes);
  return {yes == 1, std::string("MPICH ") + MPICH_VERSION + ": MPIX_GPU_query_support(" +
                        (cuda ? "CUDA" : "HIP") + ") = " + (yes == 1 ? "1" : "0")};
#elif defined(MPIX_CUDA_AWARE_SUPPORT) || defined(MPIX_ROCM_AWARE_SUPPORT)
  if (cuda) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    const bool yes = MPIX_Query_cuda_support() == 1;
    return {yes, std::string("Open MPI: MPIX_Query_cuda_support() = ") + (yes ? "1" : "0")};
#endif
  } else {
#if defined(MPIX_ROCM_AWARE_SUPPORT)
    const bool yes = MPIX_Query_rocm_support() == 1;
    return {yes, std::string("Open MPI: MPIX_Query_rocm_support() = ") + (yes ? "1" : "0")};
#endif
  }
#endif
  return {false, std::string("no ") + (cuda ? "CUDA" : "ROCm") +
                     "-awareness query in this MPI (neither Open MPI's <mpi-ext.h> nor MPICH's "
                     "MPIX_GPU_query_support)"};
}

/// Cray MPICH moves GPU buffers only when MPICH_GPU_SUPPORT_ENABLED=1 at start-up.
Answer cray_mpich() {
  const char* value = std::getenv("MPICH_GPU_SUPPORT_ENABLED");
  if (value == nullptr) return {false, ""};
  const bool yes = std::strcmp(value, "1") == 0;
  return {yes, std::string("Cray MPICH: MPICH_GPU_SUPPORT_ENABLED=") + value};
}

Answer ask_mpi() {
  if (kGpuRuntime == GpuRuntime::none) return {false, "this build has no GPU backend"};
  Answer cray = cray_mpich();
  if (!cray.how.empty()) return cray;
  if (kGpuRuntime == GpuRuntime::cuda) return mpi_query(true);
  if (kGpuRuntime == GpuRuntime::hip) return mpi_query(false);
  return {false, "no GPU-awareness query for SYCL device memory in this MPI"};
}

Answer& answer() {
  static Answer cached = ask_mpi();
  return cached;
}

}  // namespace

std::string confirm_device_memory_support(const Communicator& comm) {
  if (kGpuRuntime == GpuRuntime::none) return "";  // known at compile time: no rank calls in
  Answer& said = answer();
  const bool here = said.accepts && !gpus_are_emulated() && num_gpus() > 0;
  if (!all_ranks(here, comm)) {
    if (!said.accepts) return "";
    said = {false,
            said.how + ", but not on every rank of the job (or a rank has no GPU): device data is staged"};
    return said.how;
  }
  const std::string wrong = probe_transfer(comm, try_gpu());
  if (wrong.empty()) {
    said.how +=
        "; a " + std::to_string(kProbeElements * 4 / (1 << 20)) + " MiB device-memory exchange checked";
    return "";
  }
  said = {false, said.how + ", but a " + std::to_string(kProbeElements * 4 / (1 << 20)) +
                     " MiB MPI_Sendrecv of device memory arrived wrong (" + wrong +
                     "): MPI is taken to be host-only and device data is staged"};
  return said.how;
}

std::string to_string(CommPath path) { return path == CommPath::direct ? "direct" : "staged"; }

bool mpi_accepts_device_memory() { return answer().accepts; }

std::string describe_mpi_device_support() { return answer().how; }

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
