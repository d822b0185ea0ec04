// The arithmetic peak: independent chains of fused multiply-adds held in registers, as
// likwid-bench's peakflops_*_fma and mixbench measure it. No memory is touched inside the loop,
// so the rate is what the FMA units do at best: the bound a GEMM's GFLOP/s is a share of.
//   x ← a·x + b in every lane of kFmaChains vectors per thread: kFmaChains·lanes·2 flops a step.
// kFmaChains independent chains cover the FMA latency (4 cycles) times the FMA pipes (2) with room,
// and stay within the 16 (AVX2) or 32 (AVX-512) vector registers. The recurrence contracts to
// x* = b / (1 − a), so the values stay finite and normal however long it runs, and the result
// can be checked: every lane ends at x* to rounding.
#pragma once

#include "core/cpu_info.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace minigpu::kernels {

/// The build's widest vector register (core/cpu_info.hpp) holds each chain.
inline constexpr int kFmaVectorBytes = kHostVectorBytes;
inline constexpr int kFmaChains = 12;
/// The recurrence's fixed point, and its factor: 1 − 2^-10 contracts a start's distance from x*
/// below float's roundoff within 2·10^4 steps, far fewer than a timing runs.
inline constexpr double kFmaFixedPoint = 2.0, kFmaFactor = 1.0 - 1.0 / 1024;

template <class T>
constexpr int fma_lanes() {
  return kFmaVectorBytes / static_cast<int>(sizeof(T));
}

/// One thread's chains for `steps` steps; returns the sum of every lane's final value.
template <class T>
T fma_chains_on_host(std::int64_t steps) {
  const T a = T(kFmaFactor), b = T(kFmaFixedPoint * (1 - kFmaFactor));
  // Starts the compiler cannot know: with constant ones GCC 12 proved that the chain starting
  // at x* = 2 stays there and dropped its FMAs from the loop (11 of 12 ran; 9 % over-counted).
  volatile T unknown_one = T(1);
  const T one = unknown_one;
  T sum = 0;
#if defined(__NVCC__)
  // nvcc's front end crashes on GCC's vector types: plain lanes, which the host compiler
  // vectorises (a CUDA build's host peak, so its label says how it was measured).
  T x[kFmaChains][fma_lanes<T>()];
  for (int c = 0; c < kFmaChains; ++c)
    for (int l = 0; l < fma_lanes<T>(); ++l) x[c][l] = one * T(c);
  for (std::int64_t s = 0; s < steps; ++s) {
    for (int c = 0; c < kFmaChains; ++c)
      for (int l = 0; l < fma_lanes<T>(); ++l) x[c][l] = x[c][l] * a + b;
  }
#else
  typedef T Vec __attribute__((vector_size(kFmaVectorBytes)));
  const Vec av = Vec{} + a, bv = Vec{} + b;
  Vec x[kFmaChains];
  for (int c = 0; c < kFmaChains; ++c) x[c] = Vec{} + one * T(c);  // distinct: no chain is a copy
  for (std::int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 16
    for (int c = 0; c < kFmaChains; ++c) x[c] = x[c] * av + bv;  // contracted to one FMA
  }
#endif
  for (int c = 0; c < kFmaChains; ++c) {
    for (int l = 0; l < fma_lanes<T>(); ++l) sum += x[c][l];
  }
  return sum;
}

/// Runs fma_chains_on_host on each of Exec's threads (one work item per thread) and returns the
/// sum over threads; flops = concurrency · steps · kFmaChains · fma_lanes<T>() · 2.
template <class Exec, class T>
double fma_peak_on_host(std::int64_t steps) {
  const int threads = Exec().concurrency();
  Kokkos::View<double*, typename Exec::memory_space> sums("minigpu::ceilings::fma_sums", threads);
  Kokkos::parallel_for(
      "ceilings::fma_peak",
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, threads).set_chunk_size(1),
      [=](const int t) { sums(t) = static_cast<double>(fma_chains_on_host<T>(steps)); });
  double total = 0;
  Kokkos::fence();
  for (int t = 0; t < threads; ++t) total += sums(t);
  return total;
}

/// Scalar chains per GPU thread: the FMA units' latency (4 cycles) is covered by the warps an SM
/// interleaves; the chains add independent work, and with the step loop unrolled 32 times they
/// leave the loop's own instructions one issue slot in 512. An SM partition issues one warp
/// instruction a cycle and float32's FMAs need every one: on an H200 8 chains unrolled 8 times
/// reached 0.87 of the pipes at the clock they ran at, 16 unrolled 32 times 0.95
/// (tests/gpu/cuda_reference fma, 2026-11-27).
inline constexpr int kFmaGpuChains = 16;

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// fma_peak_on_device's body: thread t's kFmaGpuChains chains for `steps` steps, their sum to sums(t).
template <class View>
struct FmaPeakGpuBody {
  using T = typename View::non_const_value_type;
  View sums;
  std::int64_t steps;
  T a, b;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    const T one = sums(t) + T(1);  // the View starts at zero: a start the compiler cannot know
    T x[kFmaGpuChains];
    for (int c = 0; c < kFmaGpuChains; ++c) x[c] = one * T(c);
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#pragma unroll 32
#endif
    // Unrolled on the GPU: the loop's counter and branch take issue slots of their own there,
    // and come once per 512 FMAs rather than once per 16.
    for (std::int64_t s = 0; s < steps; ++s) {
      for (int c = 0; c < kFmaGpuChains; ++c) x[c] = x[c] * a + b;
    }
    T sum = 0;
    for (int c = 0; c < kFmaGpuChains; ++c) sum += x[c];
    sums(t) = sum;
  }
};

/// The sum over threads of fma_peak_on_device's results, in double.
template <class View>
struct FmaPeakGpuSumBody {
  using value_type = double;
  View sums;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t, double& acc) const {
    acc += static_cast<double>(sums(t));
  }
};

/// The same recurrence on a GPU: `threads` threads (enough to fill every SM several times) of
/// kFmaGpuChains scalar chains each; returns the sum of every chain's final value. flops =
/// threads · steps · kFmaGpuChains · 2 (nvcc and hipcc contract a·x + b to one FMA by default).
template <class Exec, class T>
double fma_peak_on_device(std::int64_t steps, std::int64_t threads) {
  using View = Kokkos::View<T*, typename Exec::memory_space>;
  View sums("minigpu::ceilings::fma_sums_gpu", threads);
  const T a = T(kFmaFactor), b = T(kFmaFixedPoint * (1 - kFmaFactor));
  Kokkos::parallel_for("ceilings::fma_peak_gpu", Kokkos::RangePolicy<Exec>(0, threads),
                       FmaPeakGpuBody<View>{sums, steps, a, b});
  double total = 0;
  Kokkos::parallel_reduce("ceilings::fma_peak_gpu_sum", Kokkos::RangePolicy<Exec>(0, threads),
                          FmaPeakGpuSumBody<View>{sums}, total);
  return total;
}

}  // namespace minigpu::kernels
