// Backend queries behind one set of #ifdefs, so nothing else in miniGPU names a GPU runtime.
#include "core/backend.hpp"

#include <stdexcept>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime.h>
#elif defined(KOKKOS_ENABLE_SYCL)
#include <sycl/sycl.hpp>
#endif

namespace minigpu {
namespace {

[[maybe_unused]] GpuProperties named(int id, std::string name, std::uint64_t bytes, std::string capability) {
  GpuProperties p;
  p.id = id;
  p.name = std::move(name);
  p.memory_bytes = bytes;
  p.compute_capability = std::move(capability);
  return p;
}

}  // namespace

#if defined(KOKKOS_ENABLE_CUDA)
int visible_gpu_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

std::string gpu_pci_bus_id(int id) {
  char bus[64] = {};
  return cudaDeviceGetPCIBusId(bus, static_cast<int>(sizeof bus), id) == cudaSuccess ? std::string(bus)
                                                                                     : std::string();
}

GpuProperties gpu_properties(int id) {
  cudaDeviceProp prop{};
  const cudaError_t status = cudaGetDeviceProperties(&prop, id);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(status));
  GpuProperties p = named(id, prop.name, prop.totalGlobalMem,
                          std::to_string(prop.major) + "." + std::to_string(prop.minor));
  int current = -1;
  std::size_t free = 0, total = 0;
  if (cudaGetDevice(&current) == cudaSuccess && current == id &&
      cudaMemGetInfo(&free, &total) == cudaSuccess) {
    p.free_bytes = free;
  }
  return p;
}
#elif defined(KOKKOS_ENABLE_HIP)
int visible_gpu_count() {
  int count = 0;
  return hipGetDeviceCount(&count) == hipSuccess ? count : 0;
}

std::string gpu_pci_bus_id(int id) {
  char bus[64] = {};
  return hipDeviceGetPCIBusId(bus, static_cast<int>(sizeof bus), id) == hipSuccess ? std::string(bus)
                                                                                   : std::string();
}

GpuProperties gpu_properties(int id) {
  hipDeviceProp_t prop{};
  const hipError_t status = hipGetDeviceProperties(&prop, id);
  if (status != hipSuccess)
    throw std::runtime_error(std::string("hipGetDeviceProperties: ") + hipGetErrorString(status));
  GpuProperties p = named(id, prop.name, prop.totalGlobalMem, prop.gcnArchName);
  int current = -1;
  std::size_t free = 0, total = 0;
  if (hipGetDevice(&current) == hipSuccess && current == id && hipMemGetInfo(&free, &total) == hipSuccess) {
    p.free_bytes = free;
  }
  return p;
}
#elif defined(KOKKOS_ENABLE_SYCL)
std::string gpu_pci_bus_id(int) { return ""; }

int visible_gpu_count() {
  return static_cast<int>(sycl::device::get_devices(sycl::info::device_type::gpu).size());
}

GpuProperties gpu_properties(int id) {
  const auto devices = sycl::device::get_devices(sycl::info::device_type::gpu);
  if (id < 0 || id >= static_cast<int>(devices.size()))
    throw std::out_of_range("gpu_properties: no SYCL GPU " + std::to_string(id));
  const auto& d = devices[static_cast<std::size_t>(id)];
  return named(id, d.get_info<sycl::info::device::name>(), d.get_info<sycl::info::device::global_mem_size>(),
               "");
}
#else
int visible_gpu_count() { return 0; }
std::string gpu_pci_bus_id(int) { return ""; }
GpuProperties gpu_properties(int) { throw std::logic_error("gpu_properties: this build has no GPU backend"); }
#endif

int active_gpu_id() {
  if constexpr (!kHasGpuBackend) {
    return -1;
  } else {
#if KOKKOS_VERSION >= 40100
    return Kokkos::device_id();
#elif defined(KOKKOS_ENABLE_CUDA)
    return Kokkos::Cuda().cuda_device();
#else
    return 0;
#endif
  }
}

bool gpu_work_finished() {
#if defined(KOKKOS_ENABLE_CUDA)
  const cudaError_t status = cudaStreamQuery(GpuExecSpace().cuda_stream());
  if (status == cudaErrorNotReady) return false;
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("cudaStreamQuery: ") + cudaGetErrorString(status));
  return true;
#elif defined(KOKKOS_ENABLE_HIP)
  const hipError_t status = hipStreamQuery(GpuExecSpace().hip_stream());
  if (status == hipErrorNotReady) return false;
  if (status != hipSuccess)
    throw std::runtime_error(std::string("hipStreamQuery: ") + hipGetErrorString(status));
  return true;
#else
  return true;
#endif
}

const char* gpu_backend_marker() {
#if defined(KOKKOS_ENABLE_CUDA)
  return "minigpu-gpu-backend:Cuda";
#elif defined(KOKKOS_ENABLE_HIP)
  return "minigpu-gpu-backend:HIP";
#elif defined(KOKKOS_ENABLE_SYCL)
  return "minigpu-gpu-backend:SYCL";
#else
  return "minigpu-gpu-backend:none";
#endif
}

std::string kokkos_version_string() {
  const int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::vector<std::string> kokkos_backends() {
  std::vector<std::string> names;
#ifdef KOKKOS_ENABLE_SERIAL
  names.emplace_back("Serial");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  names.emplace_back("OpenMP");
#endif
#ifdef KOKKOS_ENABLE_THREADS
  names.emplace_back("Threads");
#endif
#ifdef KOKKOS_ENABLE_CUDA
  names.emplace_back("Cuda");
#endif
#ifdef KOKKOS_ENABLE_HIP
  names.emplace_back("HIP");
#endif
#ifdef KOKKOS_ENABLE_SYCL
  names.emplace_back("SYCL");
#endif
  return names;
}

}  // namespace minigpu
