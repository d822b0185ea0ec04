// The native GEMM's small path (kernels/gemm_host_small.hpp) against its general loops
// (gemm_host_blocked), bit for bit; through gemm_host against the triple loop: test_matmul.cpp.
#include "core/gemm_dims.hpp"
#include "kernels/gemm_host.hpp"
#include "kernels/gemm_host_small.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace minigpu
