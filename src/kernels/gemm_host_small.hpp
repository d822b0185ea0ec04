// gemm_host's path for the smallest products, as a BLAS has one (OpenBLAS's AVX-512 small-matrix
// kernels): A and B read in place, every tile a call of the micro-kernel and nothing else, on one
// thread or on a few that take runs of C's rows (gemm_host_small_rows). gemm_host_blocked's loops
// plan blocks, slabs and packing for any shape: about 15 integer divisions before the first tile
// (50 ns, one 12 × 32 tile's 16 steps of k) and 30 cycles of choosing each tile. At
// m = n = k = 64 that came to 0.13-0.17 µs of a 2.4 µs product, the gap to OpenBLAS's small path
// (1 thread, float32 and float64 alike, Zen 5 VM, 2026-12-04). Where it applies the tiles and
// their order are gemm_host_blocked's, so C is the same to the bit; only where α ≠ 1 and C is
// added may the compiler fuse α·sum + C into one FMA in one path and not in the other, one
// rounding apart (a test met it: float32, 4 × 12 times 12 × 20, C += 0.3·A·B).
#pragma once

#include "core/cpu_info.hpp"
#include "core/gemm_dims.hpp"
#include "kernels/gemm_host_grouped.hpp"
#include "kernels/gemm_host_tile.hpp"
#include "kernels/host_scratch.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace minigpu::kernels::detail {

// Whether gemm_host_small takes C = A·B on one thread, and how: 0 where it does not; else the
// steps of k in a group of the grouped tile (gemm_host_grouped.hpp) for B's ragged last panel, 1
// where B has none. It takes all of k in one pass with A read in place (`direct_a`, gemm_host's
// test); B's columns in whole panels, or a ragged last one that the grouped tile takes (n = 100
// in float32); the whole product within L2, B within half of it and one panel of B within half of
// L1, where gemm_host_blocked reads B in place too and runs each panel of B past every tile of
// rows; and C's last rows a tile that reads them in place (MR, M2 or M1 of them). These restate
// gemm_host_blocked's direct_b, a_panel_in_l1 and grouped for one worker; a test holds the two
// paths' C to each other bit for bit, so where they part, it fails.
template <class T>
int small_product_plan(const GemmDims& d, bool direct_a, std::int64_t nc) {
  using Tile = HostTile<T>;
  const std::int64_t rest = d.m % Tile::MR, bytes = sizeof(T);
  const CpuCaches& caches = cpu_caches();
  const bool fits = direct_a && d.n <= nc && (rest == 0 || rest == Tile::M1 || rest == Tile::M2) &&
                    (d.m * d.k + d.k * d.n + d.m * d.n) * bytes <= caches.l2 &&
                    d.k * d.n * bytes <= caches.l2 / 2 && d.k * Tile::NR * bytes <= caches.l1d / 2;
  if (!fits) return 0;
  const int last_cols = static_cast<int>(d.n % Tile::NR);
  if (last_cols == 0) return 1;
  const int group = k_group<T>(last_cols);
  return group > 1 && d.k % group == 0 ? group : 0;
}

// Every tile of C's rows, top to bottom, as gemm_host_blocked cuts them (RowTiles decides where
// the tail splits): tile(MT, first row), MT a std::integral_constant. After the full tiles, M2 and
// M1 rows only: small_product_plan refuses other last rows. The tail's tiles are written out, not
// looped over with RowTiles' heights: that loop cost float32 m = 16, n = k = 64 8-15 % and
// m = 64 2-5 % here (alternating batches, Zen 5 VM, 2026-12-04).
template <class T, class Tile>
inline void for_each_row_tile(const std::int64_t m, const Tile& tile) {
  using Shape = HostTile<T>;
  constexpr int MR = Shape::MR, M1 = Shape::M1, M2 = Shape::M2;
  const RowTiles<Shape> tiles(m, true);
  const std::int64_t full = tiles.full_tiles(), tail_row = full * MR;
  for (std::int64_t i = 0; i < full; ++i) tile(std::integral_constant<int, MR>{}, i * MR);
  if (tiles.split_tail) {
    tile(std::integral_constant<int, M2>{}, tail_row);
    tile(std::integral_constant<int, M2>{}, tail_row + M2);
  } else if (m - tail_row == M2) {
    tile(std::integral_constant<int, M2>{}, tail_row);
  } else if (m - tail_row == M1) {
    tile(std::integral_constant<int, M1>{}, tail_row);
  }
}

// C = α·A·B (+ C where load_c) where small_product_plan gave `last_group` > 0: each whole panel
// of B's columns in turn, down C's rows, then a ragged last panel packed for the grouped tile.
template <class T>
void gemm_host_small(T* const cp, const T* const ap, const T* const bp, const GemmDims& d, const bool load_c,
                     const T alpha, const int last_group) {
  using Tile = HostTile<T>;
  constexpr int MR = Tile::MR, NR = Tile::NR, NV = Tile::NV, V = kHostVectorBytes;
  const std::int64_t whole_cols = d.n / NR * NR;
  for (std::int64_t j = 0; j < whole_cols; j += NR) {
    for_each_row_tile<T>(d.m, [&](auto rows, const std::int64_t r) {
      constexpr int MT = decltype(rows)::value;
      micro_kernel<T, true, NV, MT, true, V, MR>(d.k, ap + r * d.lda, bp + j, cp + r * d.ldc + j, d.ldc, MT,
                                                 NR, load_c, alpha, d.lda, d.ldb);
    });
  }
  const int last_cols = static_cast<int>(d.n - whole_cols);
  if (last_cols == 0) return;
  T* const panel = host_scratch<T, 1>(d.k * NR);
  pack_b_grouped(panel, bp + whole_cols, d.ldb, last_cols, d.k, last_group);
  for_each_row_tile<T>(d.m, [&](auto rows, const std::int64_t r) {
    tile_grouped(d.k, ap + r * d.lda, d.lda, panel, cp + r * d.ldc + whole_cols, d.ldc, decltype(rows)::value,
                 last_cols, load_c, alpha);
  });
}

// Work each thread of the small path must have, at least: a product of 2 MFLOP (n = 100) runs on
// two. gemm_host's general rule (kMinFlopsPerWorker, 4 MFLOP) came from its own loops, which
// plan and launch twice; here one launch takes all the rows. 2-core Zen 4 VM, 2026-12-05,
// minigpu_bench, 2 threads, five alternating pairs of processes, GFLOP/s on 1 thread → 2: float32
// n = 100 109 → 135-187, n = 128 114-115 → 157-206; float64 n = 100 56 → 77-103, n = 128 57 →
// 90-105. The processes fell into two groups, the lower figures in one, where everything that
// crosses between the two vCPUs costs more (the cause lies in the VM, not found); both gain.
// Where the next product reads what the other thread wrote, the second group lost: the logging
// step (Y = A·X, X the last Y) went from 18.4 µs to 12.2-12.5 in the first group and 21.1-21.5 in
// the second, half of X crossing between the cores each step.
inline constexpr double kMinSmallFlopsPerWorker = 1.0e6;
// On Intel's cores a product of up to 100³ multiply-adds stays on one thread, as PyTorch's OpenBLAS
// kept it (its logging step took 20.3 µs on 1 thread and 20.4 on 2): their L3 is a mesh, and a
// cache line one core wrote reaches another slowly, which a chain of products pays each time.
// 2-core Xeon VM (Emerald Rapids, 48 KiB L1d, 2 MiB L2), 2026-12-06, 2 threads against 1:
// independent products (minigpu_bench, 3 alternating rounds) gained, float32 n = 100 13 → 9-10 µs,
// float64 25-29 → 15-17; but the logging step (Y = A·X, X the last Y; 1000 steps, 3 alternating
// rounds) lost, float32 13.7-14.1 → 18.8-21.5 µs, float64 26.3-32.9 → 34.2-37.4. With this rule it
// ran level (float32 13.6-13.8, float64 26.0-27.9); bench.sh's 2-thread logging rows against
// PyTorch's `out=` loop had missed 0.75 at 0.877 and 0.756.
// n = 128 (4.2 MFLOP) still splits: its logging step ran level on 2 threads or lost once in float32
// (26.3-38.2 against 26.8-28.2 µs) and gained in float64 (52.0-52.4 against 52.8-59.5), while
// independent products gained 28 → 16-18 µs and 50-54 → 29-41.
inline constexpr double kIntelOneThreadSmallFlops = 2.0e6;

// How many threads of Exec take a small product of `flops`: one for each kMinSmallFlopsPerWorker,
// up to the space's threads (on Intel's cores one up to kIntelOneThreadSmallFlops), and each thread
// two of C's MR-row panels at least, so that the last thread's rows end in the tail tiles the whole
// product's do (RowTiles splits a tail only after a full panel). Exec() is asked only where a
// second thread could pay: an instance costs an allocation, and the smallest products take a
// few µs.
template <class Exec, class T>
std::int64_t small_product_workers(const GemmDims& d, const double flops) {
  if (flops <= kIntelOneThreadSmallFlops && cpu_is_intel()) return 1;
  const auto by_work = static_cast<std::int64_t>(flops / kMinSmallFlopsPerWorker);
  const std::int64_t by_rows = (d.m + HostTile<T>::MR - 1) / HostTile<T>::MR / 2;
  const std::int64_t most = std::min(by_work, by_rows);
  return most < 2 ? 1 : std::min<std::int64_t>(most, Exec().concurrency());
}

// gemm_host_small on `workers` threads of Exec, each a run of C's MR-row panels with all of B:
// the same tiles as on one thread, so the same C to the bit. Rows, not columns: a run of 48 rows
// of n = 100 is 300 whole cache lines, where runs of columns of rows 400 bytes long share lines
// at both edges of every row (the logging step, first group of processes: 14.2-14.5 µs by
// columns, 12.0-13.3 by rows).
template <class Exec, class T>
void gemm_host_small_rows(T* const cp, const T* const ap, const T* const bp, const GemmDims& d,
                          const bool load_c, const T alpha, const int last_group,
                          const std::int64_t workers) {
  constexpr std::int64_t MR = HostTile<T>::MR;
  const std::int64_t panels = (d.m + MR - 1) / MR;
  // A plain host lambda, as gemm_host_blocked's: the tiles use thread_local buffers.
  Kokkos::parallel_for(
      "gemm::host_small", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, workers),
      [=](const std::int64_t w) {
        const std::int64_t first = w * panels / workers * MR;
        GemmDims rows = d;
        rows.m = std::min(d.m, (w + 1) * panels / workers * MR) - first;
        gemm_host_small(cp + first * d.ldc, ap + first * d.lda, bp, rows, load_c, alpha, last_group);
      });
  Exec().fence();
}

}  // namespace minigpu::kernels::detail
