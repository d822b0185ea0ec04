// The project's native host matrix product, C = A·B or C += A·B over row-major Views, in the
// GotoBLAS/BLIS scheme. flops = 2·m·n·k against only (m·k + k·n + m·n) elements of data, so the
// product can run at the FMA units' rate only if every element fetched from memory is reused
// many times from a cache close to the core. Loops, outermost first:
//   jc  NC columns of B and C        the packed KC×NC block of B lives in L3
//   pc  KC long stretch of k         B[pc, jc] packed once into NR-wide column micro-panels
//   ic  MC rows                      A[ic, pc] packed into MR-tall row micro-panels, which stay
//                                    in L2 while the whole B block streams past
//   jr  NR columns                   one KC×NR micro-panel of B stays in L1 ...
//   ir  MR rows                      ... while the micro-kernel runs over each MR×KC panel of A,
//                                    keeping its MR×NR tile of C in vector registers for KC
//                                    rank-1 updates (MR broadcasts + NR/W loads per MR·NR FMAs)
// On several threads each worker takes a slab of C's columns and runs these loops over it alone
// (or, for a C too narrow to cut, the workers share B's block and take blocks of rows).
// Packing makes both operands contiguous in the order the micro-kernel reads them and pads
// ragged edges with zeros, so the micro-kernel has no edge path: only C's write-back is guarded.
// KC, MC and NC come from the caches the OS reports (cpu_caches()), MR and NR from the vector
// width this build targets (kHostVectorBytes); the micro-kernel and the choice of tile are in
// gemm_host_tile.hpp, the packing in gemm_host_pack.hpp.
#pragma once

#include "core/backend.hpp"
#include "core/cpu_info.hpp"
#include "core/gemm_dims.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm_host_amx.hpp"
#include "kernels/gemm_host_grouped.hpp"
#include "kernels/gemm_host_pack.hpp"
#include "kernels/gemm_host_tile.hpp"
#include "kernels/host_scratch.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace minigpu::kernels {

namespace detail {

// Work below which one more thread does not pay for its wake-up (a few µs): 4 MFLOP, about
// 25 µs of one AVX-512 core.
inline constexpr double kMinFlopsPerWorker = 4.0e6;

// Rows of A per packed block, at least, before rounding to MR: see host_blocking.
inline constexpr std::int64_t kMinBlockRows = 32;
/// At most this many rows in an Intel core's A block (host_blocking()).
inline constexpr std::int64_t kIntelBlockRows = 256;

// Columns of C per worker's slab, at least, when the threads split C by columns (see gemm_host):
// each slab repacks all of A, which its columns must repay. With 128 or 150 a slab (n = 256 and
// 300, m = 2048 and 4096, 2 threads) float32 ran 7-10 % slower than with rows shared out; with
// 512 (n = 1024) -4 to +5 %.
inline constexpr std::int64_t kMinSlabColumns = 512;

struct HostBlocking {
  std::int64_t kc = 0, mc = 0, nc = 0;
};

// Cache blocking from the cache sizes. KC: deep, because each MR×NR tile of C is loaded and
// stored once per KC rank-1 updates; the KC×NR micro-panel of B (128 bytes per step of k) may
// outgrow L1 and stream from L2, which feeds it with room to spare, so it is capped at an
// eighth of L2 and at 512. On a Xeon (48 KiB L1d, 2 MiB L2) native / OpenBLAS went from
// 0.88-0.91 at KC = 192 (B in half of L1) to 0.94-1.03 at 512, n = 512 ... 2048, 1 thread.
// MC: the packed A block (MC×KC) in an eighth of L2, and at least kMinBlockRows rows: each KC×NR
// micro-panel of B comes from L3 once per block of rows and serves its MC/MR tiles, so with a
// small L2 KC gives way. On the Zen 5 VM (1 MiB L2, KC = 512) float64 at MC = 24 (a 96 KiB
// block) ran 2-6 % faster than at 120 (half of L2), 6 interleaved calls each, median GFLOP/s
// pinned to one core / the other / on 2 threads: n = 1024 90.9 / 95.8 / 172.1 against 86.9 /
// 93.3 / 166.6; n = 2048 88.2 / 99.2 / 177.1 against 83.0 / 96.1 / 170.3; n = 4096 90.4 / 98.5
// / 175.4 against 88.1 / 96.1 / 165.0. MC = 36 and 48 ran between 120 and 24 or level with 24;
// 12 level with 24 at n = 1024 and 2048, above it at 4096 (92.0 / 98.6 / 179.5). float32 (MC 60
// for 128) and bfloat16 (60 for 252) ran level, within ±2 %, either way. A Zen 3 (512 KiB L2)
// had KC = 256 and MC = 126 run 6-8 % faster than KC = 512 and MC = 60 on 1 thread; it now gets
// KC = 256 and MC = 24.
// Intel's cores get the A block in half of L2, at most kIntelBlockRows rows: their L3 is a mesh
// further from the core than a Zen CCX's, so a B micro-panel from it should serve more tiles. A
// 2-core Xeon VM (AVX-512, AMX; 48 KiB L1d, 2 MiB L2), 2026-12-01, KC = 512, 3 interleaved
// rounds each, GFLOP/s at n = 1024 / 2048 on 1 thread: float64 at MC = 252 71.8-73.6 /
// 66.6-72.4 against 65.2-70.2 / 69.9-71.7 at 60 (an eighth of L2); float32 at 252 153.2-156.9 /
// 149.6-157.9 against 145.6-149.1 / 144.7-158.0 at 120; on 2 threads float64 at 240 140-146 /
// 141-147 against 134-144 / 133-142. More rows lost: float64 at 360 62-67, at 504 59-67; float32
// at 504 level with 120.
// NC: the packed B block (KC×NC) in half of L3, and in at most 4 × L2: the L3 a VM reports may
// be the whole socket's (508 MiB on the Zen 5 VM), and even a real one is shared with the other
// cores, while the block must stay there as A's blocks and C's rows stream past it. On that VM
// (1 MiB L2), 1 thread, n = 2048, 12 interleaved calls each, pinned to one core and then the
// other: float64 at NC = 2048 (an 8 MiB block) read a median of 77.8 / 92.1 GFLOP/s, at 1024 (4
// MiB) 82.3 / 94.9, at 512 83.0 / 93.4, at 256 78.2 / 89.6 (A is packed again for each block of
// columns); float32 at 2048 (4 MiB) 173.7, 1024 173.0, 512 165.4. On 2 threads each worker's slab
// of 1024 columns was within the cap already.
// Operands of S (bfloat16 into a float C) take as many bytes per block: a KC twice as deep for
// 2-byte operands, up to 1024, so C's tile is loaded and stored half as often.
template <class T, class S = T>
HostBlocking host_blocking() {
  using Tile = HostTile<T>;
  const CpuCaches& caches = cpu_caches();
  const std::int64_t bytes = sizeof(S);
  auto round_down = [](std::int64_t v, std::int64_t unit) { return std::max(unit, v / unit * unit); };
  HostBlocking b;
  b.kc = round_down(std::min<std::int64_t>({caches.l2 / 8 / (Tile::NR * bytes), bytes == 2 ? 1024 : 512,
                                            caches.l2 / 8 / (kMinBlockRows * bytes)}),
                    8);
  b.mc = bytes >= 4 && cpu_is_intel()
             ? round_down(std::min<std::int64_t>(caches.l2 / 2 / (b.kc * bytes), kIntelBlockRows), Tile::MR)
             : round_down(caches.l2 / 8 / (b.kc * bytes), Tile::MR);
  b.nc = round_down(std::min<std::int64_t>(std::min(caches.l3 / 2, 4 * caches.l2) / (b.kc * bytes), 4096),
                    Tile::NR);
  return b;
}

}  // namespace detail

/// C = A·B (or C += A·B when `accumulate`) for row-major Views in host-accessible memory
/// (unit stride; rows lda/ldb/ldc long, see GemmDims). A and B share C's type, or are bfloat16
/// with C float where kHostBf16Dot. With `alpha`, C = α·A·B (+ C): α is read where it lies,
/// in host-accessible memory, when the product starts, so an earlier kernel may have written it.
template <class CView, class AView, class BView>
void gemm_host(const CView& c, const AView& a, const BView& b, GemmDims d, bool accumulate,
               const typename CView::non_const_value_type* alpha = nullptr) {
  using T = typename CView::non_const_value_type;
  using S = typename AView::non_const_value_type;
  static_assert(std::is_same_v<S, typename BView::non_const_value_type>, "gemm_host: A and B share a type");
  static_assert(
      std::is_same_v<S, T> || (kHostBf16Dot && std::is_same_v<S, bfloat16> && std::is_same_v<T, float>),
      "gemm_host: operands of C's type, or bfloat16 into float on a CPU with AVX512_BF16");
  constexpr std::int64_t KS = detail::kHostKStep<S>;  // k is packed in steps of KS (pairs for bfloat16)
  using Tile = detail::HostTile<T>;
  using Exec = typename CView::execution_space;
  static_assert(Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible,
                "gemm_host runs its loops on C's execution space, which must be a host space");
  constexpr std::int64_t MR = Tile::MR, NR = Tile::NR;
  if (d.m <= 0 || d.n <= 0) return;
  T* const cp = c.data();
  const S* const ap = a.data();
  const S* const bp = b.data();
  if (d.k <= 0) {  // an empty sum: C = 0, or C unchanged
    if (!accumulate) {
      for (std::int64_t i = 0; i < d.m; ++i) std::fill(cp + i * d.ldc, cp + i * d.ldc + d.n, T(0));
    }
    return;
  }
  // Applied by each tile to its sums before C is added, so no pass over C of its own.
  const T scale = alpha ? *alpha : T(1);
  static const detail::HostBlocking blocking = detail::host_blocking<T, S>();
  // Blocks of equal size under each cap: k = KC + 1 as KC and 1 would make a second pass over C
  // for a single rank-1 update.
  auto balanced = [](std::int64_t total, std::int64_t cap, std::int64_t unit) {
    const std::int64_t blocks = (total + cap - 1) / cap;
    return ((total + blocks - 1) / blocks + unit - 1) / unit * unit;
  };
  // Every worker needs a block of rows: with few rows per thread, smaller MC blocks beat idle ones.
  // A product too small to repay waking a thread runs on the calling thread alone, as a BLAS
  // does: a 100×100 step (2 MFLOP) took longer on 2 threads than on 1.
  const double flops = 2.0 * static_cast<double>(d.m) * static_cast<double>(d.n) * static_cast<double>(d.k);
  // (Exec() is only asked when a second worker could pay: each instance costs an allocation, and
  // a 64×64 product takes 5 µs.)
  const auto by_work = static_cast<std::int64_t>(flops / detail::kMinFlopsPerWorker);
  const std::int64_t workers =
      by_work < 2 ? 1 : std::clamp<std::int64_t>(by_work, 1, std::max(1, Exec().concurrency()));
  if constexpr (std::is_same_v<S, bfloat16>) {  // AMX's tiles where the CPU, OS and shape allow
    if (gemm_host_amx<Exec>(cp, ap, bp, d, accumulate, scale, workers)) return;
  }
  // Several workers take one slab of C's columns each, and each packs its own blocks of B and A
  // into its own caches; none waits for another until the product ends. The two vCPUs of a Zen 5
  // VM sit 450 ns apart (a cache line's round trip), so where the workers shared one packed B
  // block and took blocks of rows, half of every block was in the other core's cache, and they
  // met at a barrier twice per block (its packing, then its rows). In `minigpu run` (medians, 3
  // sittings of interleaved rounds) slabs ran +1 to +9 % at n = 1024 and 2048, both dtypes, and
  // against a 2 × 1-thread rate float32 0.86 → 0.91 at n = 1024, float64 0.88 → 0.94; called
  // back to back (best of 15) -4 to +5 %. They give up the rows' dynamic hand-out, so a worker
  // slowed by a neighbour is no longer helped by the other; the packing of A, twice now, is what
  // kMinSlabColumns repays. A C too narrow for a slab each keeps the shared B block.
  const std::int64_t col_panels = (d.n + NR - 1) / NR;
  const std::int64_t slabs = workers > 1 && d.n >= workers * detail::kMinSlabColumns ? workers : 1;
  const std::int64_t row_workers = slabs > 1 ? 1 : workers;
  const std::int64_t rows_each = ((d.m + row_workers - 1) / row_workers + MR - 1) / MR * MR;
  // Blocks of rows in a multiple of the workers, so that none idles while the others finish (7
  // blocks on 2 threads ran at 7/8 of the rate of 8, n = 2048, float64), each of as many MR-row
  // panels as the next, give or take one: blocks of one size MC left the last block short and
  // its worker idle (n = 1024: five blocks of 180 rows and one of 124, so 540 rows on one thread
  // and 484 on the other; now 516 and 508).
  const std::int64_t cap = std::min(blocking.mc, rows_each), panels = (d.m + MR - 1) / MR;
  const std::int64_t m_blocks =
      std::min(panels, ((d.m + cap - 1) / cap + row_workers - 1) / row_workers * row_workers);
  const std::int64_t kc_max = balanced(d.k, blocking.kc, KS);
  const std::int64_t nc_max =
      balanced(slabs > 1 ? (col_panels + slabs - 1) / slabs * NR : d.n, blocking.nc, NR);
  // Small products (all of k in one pass, A within half of L2) read A's full MR-row panels in
  // place, and a last panel that a shorter tile takes exactly (n = 64: 4 rows; native /
  // OpenBLAS went from 0.80 to 0.85 in float32): packing them is a scalar transpose that cost about a quarter
  // of a 100×100 product, and is only repaid when a panel is reused from cache across many column panels.
  // Half, not a quarter: float64 at n = 256 on 2 threads went from 69 % to 80 % of the FMA peak.
  const bool direct_a = kc_max == d.k && d.k % KS == 0 &&
                        d.m * d.k * static_cast<std::int64_t>(sizeof(S)) <= cpu_caches().l2 / 2;
  // And B's full NR-column panels in place too, when all of B fits there as well: the unpacked
  // path a BLAS takes for small products (OpenBLAS's AVX-512 small-matrix kernels; native /
  // OpenBLAS at n = 64 went from 0.75 to 0.80 in float32). Only a ragged last panel is packed,
  // so that no load reads past a row of B. On one worker, only where A, B and C together fit in
  // L2, or B's panels, read again for every panel of A's rows, are pushed out by A's and C's
  // lines: float32 n = 512 (3 MiB against a 2 MiB L2) ran 199-207 GFLOP/s read in place and
  // 212-214 packed, n = 448 211-214 and 215-216, n = 384 (1.7 MiB) 225 and 220 (1 thread, Xeon
  // VM). Workers sharing B keep it in place: packing it first cost them a barrier, and n = 512 on
  // 2 threads went from 396-418 to 369-371.
  const std::int64_t whole_product_bytes = (d.m * d.k + d.k * d.n) * static_cast<std::int64_t>(sizeof(S)) +
                                           d.m * d.n * static_cast<std::int64_t>(sizeof(T));
  const bool direct_b = direct_a && std::is_same_v<S, T> && nc_max >= d.n &&
                        d.k * d.n * static_cast<std::int64_t>(sizeof(S)) <= cpu_caches().l2 / 2 &&
                        (workers > 1 || whole_product_bytes <= cpu_caches().l2);
  // A ragged last panel of B whose every tile reads A in place takes the grouped tile
  // (gemm_host_grouped.hpp: n = 100 multiplies its last 4 columns as 4 steps of k a vector, not
  // as half vectors with a broadcast of A each). Only C's last panel of rows can be short.
  const bool rows_all_in_place = direct_a && detail::rows_in_place<S, T>(d.m - (panels - 1) * MR);
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  // Blocks of rows handed out one at a time as threads come free, not split in fixed shares: where
  // cores run at different speeds (a VM's busy neighbours, hybrid cores) the fast ones take more
  // rather than wait at the loop's end. 2-core Zen 3 VM, n = 2048 on 2 threads (2026-11-29), in
  // minigpu_bench (10 interleaved pairs): float64 median 62.1 against 59.7 GFLOP/s (faster in 9
  // pairs), float32 120.3 against 114.7 (6 of 10); in `minigpu run` (6 pairs) 57.0 against 55.4
  // and 113.3 against 113.2, within that VM's noise.
  using DynamicPolicy =
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<std::int64_t>>;

  // Plain host lambdas, not KOKKOS_LAMBDA: the bodies use thread_local buffers, which GPU
  // compilers reject in (host-)device code.
  // Columns [j_begin, j_end) of C, on the calling thread alone or with the workers sharing its
  // packed B block (row_parallel), which is then only read inside the loops after its packing.
  const auto columns = [=](const std::int64_t j_begin, const std::int64_t j_end, const bool row_parallel) {
    S* const b_pack = detail::host_scratch<S, 1>(kc_max * ((nc_max + NR - 1) / NR * NR));
    for (std::int64_t jc = j_begin; jc < j_end; jc += nc_max) {
      const std::int64_t nc = std::min(nc_max, j_end - jc), n_panels = (nc + NR - 1) / NR;
      for (std::int64_t pc = 0; pc < d.k; pc += kc_max) {
        const std::int64_t kc = std::min(kc_max, d.k - pc), kc_packed = (kc + KS - 1) / KS * KS;
        const bool load_c = accumulate || pc > 0;
        const int last_cols = static_cast<int>(nc - (n_panels - 1) * NR);
        const int group = std::is_same_v<S, T> && last_cols < NR ? detail::k_group<T>(last_cols) : 1;
        const bool grouped = rows_all_in_place && group > 1 && kc % group == 0;
        const auto pack_b = [=](const std::int64_t q) {
          if (direct_b && nc - q * NR >= NR) return;  // read in place
          if constexpr (std::is_same_v<S, T>) {
            if (grouped && q == n_panels - 1) {
              detail::pack_b_grouped(b_pack + q * NR * kc_packed, bp + pc * d.ldb + jc + q * NR, d.ldb,
                                     last_cols, kc, group);
              return;
            }
          }
          detail::pack_b_panel(b_pack + q * NR * kc_packed, bp + pc * d.ldb + jc + q * NR, d.ldb,
                               std::min(NR, nc - q * NR), kc);
        };
        const auto row_block = [=](const std::int64_t blk) {
          const std::int64_t ic = blk * panels / m_blocks * MR;
          const std::int64_t rows = std::min((blk + 1) * panels / m_blocks * MR, d.m) - ic;
          const std::int64_t m_panels = (rows + MR - 1) / MR;
          S* const a_pack = detail::host_scratch<S, 0>(m_panels * MR * kc_packed);
          for (std::int64_t q = 0; q < m_panels; ++q) {
            // Read in place; only a ragged panel no shorter tile fits exactly is packed.
            if (direct_a && detail::rows_in_place<S, T>(std::min(MR, rows - q * MR))) continue;
            detail::pack_a_panel(a_pack + q * MR * kc_packed, ap + (ic + q * MR) * d.lda + pc, d.lda,
                                 std::min(MR, rows - q * MR), kc);
          }
          // Read in place, the last MR + M1 rows run as two tiles of M2 (m = 64: 12·4 + 8 + 8, not
          // 12·5 + 4): a tile of M1 rows has too few accumulators to hide the FMA's latency, and
          // ran at 75 % of the rate of a full one.
          const bool split_tail =
              direct_a && std::is_same_v<S, T> && m_panels >= 2 && rows - (m_panels - 1) * MR == Tile::M1;
          for (std::int64_t jr = 0; jr < n_panels; ++jr) {
            const int cols = static_cast<int>(std::min(NR, nc - jr * NR));
            for (std::int64_t ir = 0; ir < m_panels; ++ir) {
              const bool in_tail = split_tail && ir >= m_panels - 2;
              const std::int64_t r0 =
                  in_tail ? (m_panels - 2) * MR + (ir - (m_panels - 2)) * Tile::M2 : ir * MR;
              const int tile_rows = static_cast<int>(in_tail ? Tile::M2 : std::min(MR, rows - r0));
              T* const c_tile = cp + (ic + r0) * d.ldc + jc + jr * NR;
              const bool b_in_place = direct_b && cols == NR;
              const S* const b_panel =
                  b_in_place ? bp + pc * d.ldb + jc + jr * NR : b_pack + jr * NR * kc_packed;
              const std::int64_t ldb = b_in_place ? d.ldb : NR;
              if constexpr (std::is_same_v<S, T>) {
                if (grouped && jr == n_panels - 1) {
                  detail::tile_grouped(kc, ap + (ic + r0) * d.lda + pc, d.lda, b_panel, c_tile, d.ldc,
                                       tile_rows, cols, load_c, scale);
                  continue;
                }
              }
              if (direct_a && detail::rows_in_place<S, T>(tile_rows)) {
                const S* const a_rows = ap + (ic + r0) * d.lda + pc;
                b_in_place ? detail::tile_for<true, true>(kc, a_rows, b_panel, ldb, c_tile, d.ldc, tile_rows,
                                                          cols, load_c, scale, d.lda)
                           : detail::tile_for<true, false>(kc, a_rows, b_panel, ldb, c_tile, d.ldc, tile_rows,
                                                           cols, load_c, scale, d.lda);
              } else {
                const S* const a_panel = a_pack + ir * MR * kc_packed;
                b_in_place ? detail::tile_for<false, true>(kc, a_panel, b_panel, ldb, c_tile, d.ldc,
                                                           tile_rows, cols, load_c, scale, 0)
                           : detail::tile_for<false, false>(kc, a_panel, b_panel, ldb, c_tile, d.ldc,
                                                            tile_rows, cols, load_c, scale, 0);
              }
            }
          }
        };
        if (!row_parallel) {
          for (std::int64_t q = 0; q < n_panels; ++q) pack_b(q);
          for (std::int64_t blk = 0; blk < m_blocks; ++blk) row_block(blk);
        } else {
          Kokkos::parallel_for("gemm::host_pack_b", Policy(0, n_panels), pack_b);
          Kokkos::parallel_for("gemm::host_tiled", DynamicPolicy(0, m_blocks, Kokkos::ChunkSize(1)),
                               row_block);
        }
      }
    }
  };
  if (slabs > 1) {
    Kokkos::parallel_for("gemm::host_slabs", Policy(0, slabs), [=](const std::int64_t w) {
      columns(std::min(d.n, w * col_panels / slabs * NR), std::min(d.n, (w + 1) * col_panels / slabs * NR),
              false);
    });
  } else {
    columns(0, d.n, workers > 1);  // rows shared out, or the calling thread alone (no wake-up)
  }
  // Host backends that run kernels asynchronously must finish before the caller reads C or a
  // later call on this thread regrows the packed-B buffer. One worker launched nothing.
  if (workers > 1) Exec().fence();
}

}  // namespace minigpu::kernels
