// The device layer's backend switch: with backend.cpp and backend_blas.*, the only code that
// names a Kokkos backend or a GPU runtime. A GPU is whatever Kokkos::DefaultExecutionSpace is
// when it is not a host space: CUDA, HIP or SYCL.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace minigpu {

/// Memory and execution spaces of the host ("cpu").
using HostMemSpace = Kokkos::HostSpace;
using HostExecSpace = Kokkos::DefaultHostExecutionSpace;

/// One host thread: a core's share beside a node figure (the ceilings' per-core rows). Serial
/// where the build has it; a build without it has no single-thread space to offer.
#if defined(KOKKOS_ENABLE_SERIAL)
using OneThreadExecSpace = Kokkos::Serial;
inline constexpr bool kHasOneThreadExecSpace = true;
#else
using OneThreadExecSpace = Kokkos::DefaultHostExecutionSpace;
inline constexpr bool kHasOneThreadExecSpace = false;
#endif

/// The value of a rank-0 View, read on the host once the kernels before it have finished: what
/// .item() or print() of a device value does each step. In GPU memory it copies on the View's
/// execution space and waits for that one instance (a stream), as a practised loop does; in host
/// memory it fences every host space (a pass may have run on OneThreadExecSpace) and reads the
/// value in place. deep_copy between two Views fenced every space twice and named each fence
/// in a fresh string: 0.19 µs a read where this takes 0.04 (the logging step, Zen 5 VM).
template <class View>
typename View::non_const_value_type read_on_host(const View& entry) {
  static_assert(View::rank == 0, "read_on_host reads one value: a rank-0 View");
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible) {
    Kokkos::fence();
    return entry();
  } else {
    const typename View::execution_space exec;
    typename View::non_const_value_type value{};
    Kokkos::deep_copy(exec, value, entry);
    exec.fence();
    return value;
  }
}

/// True when the build's default execution space is a GPU.
inline constexpr bool kHasGpuBackend =
    !std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>;

/// Spaces of a GPU: the default execution space's when it is one. On a host-only build a GPU
/// can only be emulated, and its spaces are the host's.
using GpuExecSpace = Kokkos::DefaultExecutionSpace;
using GpuMemSpace = GpuExecSpace::memory_space;

/// Page-locked host memory of the GPU runtime, which copies to and from the GPU run from at
/// full speed; plain host memory where the backend has none.
#if defined(KOKKOS_ENABLE_CUDA)
using PinnedHostMemSpace = Kokkos::CudaHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_HIP)
using PinnedHostMemSpace = Kokkos::HIPHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_SYCL) && KOKKOS_VERSION >= 40000
using PinnedHostMemSpace = Kokkos::SharedHostPinnedSpace;
#else
using PinnedHostMemSpace = Kokkos::HostSpace;
#endif
/// True when the backend has page-locked host memory distinct from pageable memory.
inline constexpr bool kHasPinnedHostMemory = !std::is_same_v<PinnedHostMemSpace, Kokkos::HostSpace>;

/// The GPU runtime behind GpuExecSpace, for code that must ask a runtime-specific question
/// (an MPI library's GPU-awareness query, say) without naming a backend itself.
enum class GpuRuntime { none, cuda, hip, sycl };
#if defined(KOKKOS_ENABLE_CUDA)
inline constexpr GpuRuntime kGpuRuntime = GpuRuntime::cuda;
#elif defined(KOKKOS_ENABLE_HIP)
inline constexpr GpuRuntime kGpuRuntime = GpuRuntime::hip;
#elif defined(KOKKOS_ENABLE_SYCL)
inline constexpr GpuRuntime kGpuRuntime = GpuRuntime::sycl;
#else
inline constexpr GpuRuntime kGpuRuntime = GpuRuntime::none;
#endif

// Host kernels may use GCC's and Clang's vector types, which GPU compilers reject in the
// device pass of a translation unit; such compilers get plain loops on the host too.
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && !defined(__HIPCC__) && \
    !defined(SYCL_LANGUAGE_VERSION)
#define MINIGPU_HOST_VECTOR_TYPES 1
#endif

// Before a short host loop that must stay one vector operation (a streamed line: kernels/
// elementwise.hpp): kept rolled, GCC's loop vectorizer makes it one. GCC 12 unrolled a loop of
// 8 first, and its SLP pass then built the triad's line from 8 scalar FMAs. Clang vectorizes
// either way; nvcc's front end warns on the pragma, so it is left out there.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define MINIGPU_ROLLED_LOOP _Pragma("GCC unroll 1")
#else
#define MINIGPU_ROLLED_LOOP
#endif

/// What the hardware reports about one GPU.
struct GpuProperties {
  int id = 0;
  std::string name;
  std::uint64_t memory_bytes = 0;
  std::string compute_capability;           ///< "9.0" on CUDA, "gfx90a" on HIP, empty elsewhere
  std::optional<std::uint64_t> free_bytes;  ///< free now, where the runtime says (the active GPU)
};

/// GPUs the process could see (respects CUDA_VISIBLE_DEVICES and the like); 0 on host builds.
int visible_gpu_count();
/// Visible GPU `id`'s PCI bus id ("0000:41:00.0"), the same in every process that sees that GPU
/// whatever its visible-device list numbers it; "" where the runtime cannot say (host, SYCL).
std::string gpu_pci_bus_id(int id);
/// The GPU id Kokkos was initialised on, or -1 when there is no GPU backend.
int active_gpu_id();
/// Properties of visible GPU `id`; throws on host-only builds.
GpuProperties gpu_properties(int id);
/// Whether everything launched so far on GpuExecSpace's default instance (its kernels, its
/// copies, the cuBLAS calls on its stream) has finished, without waiting: the stream's query on
/// CUDA and HIP, so that a caller can drive MPI while the GPU computes. True on host builds,
/// whose kernels have finished when their launch returns, and on SYCL (no query wired: callers
/// then progress MPI after the work, as on the host).
bool gpu_work_finished();

/// "minigpu-gpu-backend:Cuda" (or HIP, SYCL, none): also a marker in the binary itself, so
/// scripts can tell a GPU build from a host-only one without running it (grep -a).
const char* gpu_backend_marker();

/// "3.4.1" style version of the Kokkos this binary was built against.
std::string kokkos_version_string();
/// Kokkos execution-space backends compiled in, e.g. {"Serial", "Cuda"}.
std::vector<std::string> kokkos_backends();

}  // namespace minigpu
