// Backend queries behind one #ifdef, so nothing else in miniGPU names CUDA.
#include "core/backend.hpp"

#include <stdexcept>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace minigpu {

#ifdef KOKKOS_ENABLE_CUDA
namespace {
void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}
}  // namespace

int visible_gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

int active_gpu_id() {
#if KOKKOS_VERSION >= 40100
  return Kokkos::device_id();
#else
  return Kokkos::Cuda().cuda_device();
#endif
}

GpuProperties gpu_properties(int id) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, id), "cudaGetDeviceProperties");
  GpuProperties p;
  p.id = id;
  p.name = prop.name;
  p.memory_bytes = prop.totalGlobalMem;
  p.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  return p;
}
#else
int visible_gpu_count() { return 0; }
int active_gpu_id() { return -1; }
GpuProperties gpu_properties(int) { throw std::logic_error("gpu_properties: this build has no GPU backend"); }
#endif

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
