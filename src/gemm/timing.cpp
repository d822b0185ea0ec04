// How `kernel: auto` times vendor against native: the two kernels interleaved on the same
// buffers, each sample long enough (kSampleSeconds) for a clock read to be noise, best of
// kSamples per kernel after one warm-up call of each (untimed), like the ceilings. 16-bit
// storage (square products only: the logging loop's) times the kernels its products run:
// the vendor's mixed GEMM against the native one through float (kernels/matmul_widened.hpp).
#include "gemm/choice.hpp"

#include "core/backend.hpp"
#include "core/dispatch.hpp"
#include "core/stopwatch.hpp"
#include "kernels/fill_integers.hpp"
#include "kernels/gemm.hpp"
#include "kernels/matmul_widened.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <stdexcept>

namespace minigpu {
namespace {

constexpr int kSamples = 5;
constexpr double kSampleSeconds = 4e-3;

template <class Mem, class T>
GemmPairTiming time_pair(GemmShape shape) {
  using View = Kokkos::View<T*, Mem>;
  View a("minigpu::gemm_auto::A", shape.m * shape.k), b("minigpu::gemm_auto::B", shape.k * shape.n),
      c("minigpu::gemm_auto::C", shape.m * shape.n);
  const GemmDims d = dense_gemm(shape.m, shape.n, shape.k);
  constexpr bool k16Bit = sizeof(T) == 2;
  if (k16Bit && (shape.m != shape.n || shape.n != shape.k))
    throw std::logic_error("time_gemm_pair: 16-bit products are timed square, not " +
                           std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
                           std::to_string(shape.k));
  const kernels::AnyMatmul<Mem, T> vendor(GemmKernel::vendor, shape.n), native(GemmKernel::native, shape.n);
  const auto product = [&](GemmKernel kernel) {
    if constexpr (k16Bit) {
      kernel == GemmKernel::vendor ? vendor(c, a, b) : native(c, a, b);
    } else {
      kernels::gemm(kernel, c, a, b, d, false);
    }
  };
  if constexpr (k16Bit) {
    kernels::fill_uniform(a, 5, 0.0f, 1.0f);
    kernels::fill_uniform(b, 6, 0.0f, 1.0f);
  } else {
    kernels::fill_small_integers(a, 5);
    kernels::fill_small_integers(b, 6);
  }
  // Seconds per call over `calls` back-to-back calls, fenced once at the end as a loop of
  // products would be.
  const auto per_call = [&](GemmKernel kernel, std::int64_t calls) {
    const auto all = [&] {
      for (std::int64_t i = 0; i < calls; ++i) product(kernel);
    };
    return best_fenced_seconds(all, 1, 0) / static_cast<double>(calls);
  };
  // One untimed call of each first: a first call pays one-time costs (cuBLAS's handle, CUDA's
  // lazily loaded modules) that would size `calls` for a kernel far slower than it is.
  for (const GemmKernel kernel : {GemmKernel::vendor, GemmKernel::native}) product(kernel);
  Kokkos::fence();
  const double first = std::min(per_call(GemmKernel::vendor, 1), per_call(GemmKernel::native, 1));
  const auto calls = static_cast<std::int64_t>(std::clamp(kSampleSeconds / std::max(first, 1e-9), 1.0, 1e5));
  GemmPairTiming best{1e300, 1e300};
  for (int s = 0; s < kSamples; ++s) {
    best.vendor_s = std::min(best.vendor_s, per_call(GemmKernel::vendor, calls));
    best.native_s = std::min(best.native_s, per_call(GemmKernel::native, calls));
  }
  return best;
}

}  // namespace

GemmPairTiming time_gemm_pair(bool gpu_memory, DType dtype, GemmShape shape) {
  // The process's own GPU is gpu(0), whatever its device number: a rank bound to CUDA device 3
  // sees one GPU (num_gpus() is 1), so gpu(active_gpu_id()) threw on every rank but the first
  // of a node with several GPUs, at the first `auto` product (and on emulated GPUs, where there
  // is no device number at all).
  const Device device = gpu_memory ? gpu(0) : cpu();
  if (is_low_precision(dtype)) {
    const auto sixteen = [&](auto type) {
      using S = typename decltype(type)::type;
      return gpu_memory ? time_pair<GpuMemSpace, S>(shape) : time_pair<HostMemSpace, S>(shape);
    };
    return dtype == DType::bf16 ? sixteen(TypeTag<bfloat16>{}) : sixteen(TypeTag<float16>{});
  }
  return dispatch(device, dtype, [&](auto place) {
    using P = decltype(place);
    return time_pair<typename P::memory_space, typename P::value_type>(shape);
  });
}

}  // namespace minigpu
