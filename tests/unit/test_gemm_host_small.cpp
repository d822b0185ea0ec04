// The native GEMM's small path (kernels/gemm_host_small.hpp) against its general loops
// (gemm_host_blocked), bit for bit; through gemm_host against the triple loop: test_matmul.cpp.
#include "core/gemm_dims.hpp"
#include "kernels/gemm_host.hpp"
#include "kernels/gemm_host_small.hpp"

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace minigpu {
namespace {

// gemm_host_small restates gemm_host_blocked's choices for one worker (B in place, the grouped
// last panel, C's row tiles) so as to skip its planning; its header promises the same C to the
// bit (see there for α with C +=). On values that round (not small integers), every product the
// small path takes against gemm_host_blocked on one worker with A read in place: a tile that sums
// k in another order (the grouped tile where the blocked path takes the plain one, or the
// reverse) fails it.
template <class T>
void expect_small_path_is_the_blocked_path() {
  using Tile = kernels::detail::HostTile<T>;
  constexpr std::int64_t MR = Tile::MR, NR = Tile::NR, M1 = Tile::M1, M2 = Tile::M2;
  const std::int64_t nc = 4096;
  int taken = 0;
  for (const std::int64_t m : {M1, M2, MR, 2 * MR + M2, MR + M1, 5 * MR + M1}) {
    for (const std::int64_t n : {NR, 2 * NR, NR + 4, 3 * NR + 4, 4 * NR + NR / 2}) {
      for (const std::int64_t k : {4, 12, 64, 100}) {
        const GemmDims d = dense_gemm(m, n, k);
        const int last_group = kernels::detail::small_product_plan<T>(d, true, nc);
        if (last_group == 0) continue;
        ++taken;
        std::vector<T> a(m * k), b(k * n), c0(m * n);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(T(0.37) * T(i + 1));
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(T(0.11) * T(i + 3));
        for (std::size_t i = 0; i < c0.size(); ++i) c0[i] = T(1) / T(i + 7);
        // α with C = …, and C += … with α = 1: with both, α·sum + C may be fused into one FMA
        // in one path and not in the other (gemm_host_small.hpp).
        for (const bool accumulate : {false, true}) {
          std::vector<T> small = c0, blocked = c0;
          const T alpha = accumulate ? T(1) : T(0.3);
          kernels::detail::gemm_host_small(small.data(), a.data(), b.data(), d, accumulate, alpha,
                                           last_group);
          kernels::detail::gemm_host_blocked<MR, Kokkos::DefaultHostExecutionSpace>(
              blocked.data(), a.data(), b.data(), d, accumulate, alpha, 1, k, true);
          for (std::size_t e = 0; e < small.size(); ++e) {
            ASSERT_EQ(small[e], blocked[e]) << "C(" << e / n << ", " << e % n << ") of " << m << "x" << k
                                            << " times " << k << "x" << n << (accumulate ? " C+=" : " C=");
          }
        }
      }
    }
  }
  EXPECT_GE(taken, 40) << "the small path took too few of the shapes to compare";
}

TEST(GemmHostSmall, GivesTheBlockedPathsCToTheBit) {
  expect_small_path_is_the_blocked_path<float>();
  expect_small_path_is_the_blocked_path<double>();
}

// gemm_host_small_rows cuts C's rows into runs of whole MR-row panels, one run a thread, and
// promises the C of one thread to the bit: a run that starts off a panel's first row, skips or
// repeats rows, or ends its tail in other tiles than the whole product's fails it. The runs are
// iterations of one launch, so this holds them to one thread's C on any number of threads.
template <class T>
void expect_runs_of_rows_give_one_threads_c() {
  using Tile = kernels::detail::HostTile<T>;
  constexpr std::int64_t MR = Tile::MR, NR = Tile::NR, M1 = Tile::M1, M2 = Tile::M2;
  int taken = 0;
  for (const std::int64_t m : {4 * MR, 4 * MR + M1, 5 * MR + M2, 9 * MR + M1, std::int64_t(100)}) {
    for (const std::int64_t n : {NR, 3 * NR + 4, std::int64_t(100)}) {
      const std::int64_t k = 100;
      const GemmDims d = dense_gemm(m, n, k);
      const int last_group = kernels::detail::small_product_plan<T>(d, true, 4096);
      if (last_group == 0) continue;
      std::vector<T> a(m * k), b(k * n), c0(m * n);
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(T(0.37) * T(i + 1));
      for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(T(0.11) * T(i + 3));
      for (std::size_t i = 0; i < c0.size(); ++i) c0[i] = T(1) / T(i + 7);
      for (const std::int64_t workers : {2, 3, 4}) {
        if ((m + MR - 1) / MR < 2 * workers) continue;  // small_product_workers gives each two panels
        ++taken;
        for (const bool accumulate : {false, true}) {
          std::vector<T> one = c0, runs = c0;
          const T alpha = accumulate ? T(1) : T(0.3);
          kernels::detail::gemm_host_small(one.data(), a.data(), b.data(), d, accumulate, alpha, last_group);
          kernels::detail::gemm_host_small_rows<Kokkos::DefaultHostExecutionSpace>(
              runs.data(), a.data(), b.data(), d, accumulate, alpha, last_group, workers);
          for (std::size_t e = 0; e < one.size(); ++e) {
            ASSERT_EQ(runs[e], one[e])
                << "C(" << e / n << ", " << e % n << ") of " << m << "x" << k << " times " << k << "x" << n
                << " in " << workers << " runs" << (accumulate ? " C+=" : " C=");
          }
        }
      }
    }
  }
  // Every shape fits the small path's caches on CI's CPUs. Whole panels (n = NR) take it on any
  // CPU: 10 (m, workers) cases. A ragged last panel of 4 columns takes it only where the grouped
  // tile serves one (gemm_host_grouped.hpp: AVX-512), 20 more; an AVX2 build refuses those.
#if defined(MINIGPU_HOST_VECTOR_TYPES) && defined(__AVX512F__)
  constexpr int expected = 30;
#else
  constexpr int expected = 10;
#endif
  EXPECT_GE(taken, expected) << "too few shapes took the small path in runs";
}

TEST(GemmHostSmall, RunsOfRowsGiveOneThreadsCToTheBit) {
  expect_runs_of_rows_give_one_threads_c<float>();
  expect_runs_of_rows_give_one_threads_c<double>();
}

// n = 100 (2 MFLOP) is split where there are threads to take it, except on Intel's cores, whose
// chained products lost on two (kIntelOneThreadSmallFlops); n = 64 (0.5 MFLOP) never is; a C of
// three MR-row panels is too short for two runs of two.
TEST(GemmHostSmall, SplitsOnlyProductsThatRepayASecondThread) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  const auto workers = [](std::int64_t m, std::int64_t n) {
    return kernels::detail::small_product_workers<Exec, float>(dense_gemm(m, n, n),
                                                               2.0 * static_cast<double>(m * n * n));
  };
  const std::int64_t threads = Exec().concurrency();
  EXPECT_EQ(workers(100, 100), cpu_is_intel() ? 1 : std::min<std::int64_t>(threads, 2));
  EXPECT_EQ(workers(100, 101), std::min<std::int64_t>(threads, 2)) << "past 100³ multiply-adds";
  EXPECT_EQ(workers(64, 64), 1);
  EXPECT_EQ(workers(3 * kernels::detail::HostTile<float>::MR, 300), 1);
  EXPECT_EQ(workers(128, 128), std::min<std::int64_t>(threads, 4));
}

}  // namespace
}  // namespace minigpu
