// The GEMM ceilings: each GEMM the host or GPU runs, timed at the sizes where it runs fastest.
//
// A ceiling is the best rate reachable, so a host GEMM's is its best over sizes from in-cache
// (n = 64) to the chapter's largest host product (n = 1024): measured at n = 1024 alone, miniGPU's
// own kernel ran 106 % of it at n = 128 in float64 (its tiles run from L1 and L2 there, at 98 %
// of the FMA peak against 89 % at n = 1024), so every small product's row was flagged past its
// bound. Small sizes repeat within one timing, so each timing holds at least 2·512³ flops; each
// size keeps the best of 7 timings.
#pragma once

#include "io/ceiling_table.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace minigpu {

/// Timings each ceiling keeps the best of. A build under AddressSanitizer (scripts/test.sh
/// --sanitize) runs its own kernels 20-50x slower, so its figures mean nothing but its code paths
/// are the same: it keeps the best of 2, and the sanitizer pass's first run on each host key
/// measures in about a third of the 55-60 s it took (AMD EPYC Zen 3, 2026-11-29).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr int kCeilingTimings = 2;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr int kCeilingTimings = 2;
#else
inline constexpr int kCeilingTimings = 7;
#endif
#else
inline constexpr int kCeilingTimings = 7;
#endif

/// The sizes (m = n = k) every host GEMM ceiling is measured at.
inline constexpr std::int64_t kHostGemmCeilingSizes[] = {64, 128, 256, 512, 1024};

/// One size's rate: 2n³·passes flops over the best timing.
struct GemmRate {
  std::int64_t n = 0;
  double gflops = 0;
};
/// The fastest of `rates` (the smallest n of equal ones); {0, 0} for none.
GemmRate fastest_gemm(const std::vector<GemmRate>& rates);

/// blas_<kind>, native_<kind> and host_<kind> (the faster) at this rank's threads, or host_<kind>_1core
/// alone on one core; kind is sgemm, dgemm or sbgemm.
void add_host_gemm(CeilingTable& t, const std::string& kind, bool one_core);
/// gpu_sgemm and gpu_dgemm: the GPU's vendor BLAS at n = 4096.
void add_gpu_gemm(CeilingTable& t);

}  // namespace minigpu
