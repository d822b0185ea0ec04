// The device layer's backend switch: the only header that names Kokkos backends.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace minigpu {

/// Memory and execution spaces of the host ("cpu") and of a GPU. On a host-only
/// build a GPU can only be emulated, so its spaces are the host's.
using HostMemSpace = Kokkos::HostSpace;
using HostExecSpace = Kokkos::DefaultHostExecutionSpace;
#ifdef KOKKOS_ENABLE_CUDA
using GpuMemSpace = Kokkos::CudaSpace;
using GpuExecSpace = Kokkos::Cuda;
using PinnedHostMemSpace = Kokkos::CudaHostPinnedSpace;
inline constexpr bool kHasGpuBackend = true;
#else
using GpuMemSpace = Kokkos::HostSpace;
using GpuExecSpace = Kokkos::DefaultHostExecutionSpace;
using PinnedHostMemSpace = Kokkos::HostSpace;
inline constexpr bool kHasGpuBackend = false;
#endif
/// True when the backend has page-locked host memory distinct from pageable memory.
inline constexpr bool kHasPinnedHostMemory = kHasGpuBackend;

/// What the hardware reports about one GPU.
struct GpuProperties {
  int id = 0;
  std::string name;
  std::uint64_t memory_bytes = 0;
  std::string compute_capability;  ///< "9.0" on CUDA, empty elsewhere
};

/// GPUs the process could see (respects CUDA_VISIBLE_DEVICES); 0 on host-only builds.
int visible_gpu_count();
/// The GPU id Kokkos was initialised on, or -1 when there is no GPU backend.
int active_gpu_id();
/// Properties of visible GPU `id`; throws on host-only builds.
GpuProperties gpu_properties(int id);

/// "3.4.1" style version of the Kokkos this binary was built against.
std::string kokkos_version_string();
/// Kokkos execution-space backends compiled in, e.g. {"Serial", "Cuda"}.
std::vector<std::string> kokkos_backends();

}  // namespace minigpu
