// The arithmetic peak: independent chains of fused multiply-adds held in registers, as
// likwid-bench's peakflops_*_fma and mixbench measure it. No memory is touched inside the loop,
// so the rate is what the FMA units do at best: the bound a GEMM's GFLOP/s is a share of.
//   x ← a·x + b in every lane of kFmaChains vectors per thread: kFmaChains·lanes·2 flops a step.
// kFmaChains independent chains cover the FMA latency (4 cycles) times the FMA pipes (2) with room,
// and stay within the 16 (AVX2) or 32 (AVX-512) vector registers. The recurrence contracts to
// x* = b / (1 − a), so the values stay finite and normal however long it runs, and the result
// can be checked: every lane ends at x* to rounding.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace minigpu::kernels {

#if defined(__AVX512F__)
inline constexpr int kFmaVectorBytes = 64;
inline constexpr const char* kFmaVectorIsa = "AVX-512";
#elif defined(__AVX__)
inline constexpr int kFmaVectorBytes = 32;
inline constexpr const char* kFmaVectorIsa = "AVX";
#else
inline constexpr int kFmaVectorBytes = 16;
inline constexpr const char* kFmaVectorIsa = "128-bit";
#endif
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
  using Vec [[gnu::vector_size(kFmaVectorBytes)]] = T;
  const Vec a = Vec{} + T(kFmaFactor), b = Vec{} + T(kFmaFixedPoint * (1 - kFmaFactor));
  // Starts the compiler cannot know: with constant ones GCC 12 proved that the chain starting
  // at x* = 2 stays there and dropped its FMAs from the loop (11 of 12 ran; 9 % over-counted).
  volatile T unknown_one = T(1);
  const T one = unknown_one;
  Vec x[kFmaChains];
  for (int c = 0; c < kFmaChains; ++c) x[c] = Vec{} + one * T(c);  // distinct: no chain is a copy
  for (std::int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 16
    for (int c = 0; c < kFmaChains; ++c) x[c] = x[c] * a + b;  // contracted to one FMA
  }
  T sum = 0;
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

}  // namespace minigpu::kernels
