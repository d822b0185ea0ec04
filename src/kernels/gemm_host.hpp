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
// KC, MC and NC come from the caches the OS reports (gemm_host_blocking.hpp), MR and NR from the
// vector width this build targets (kHostVectorBytes) and from whether A is packed (14 rows with
// AVX-512) or read in place (12); the micro-kernel and the choice of tile are in
// gemm_host_tile.hpp, the packing in gemm_host_pack.hpp, and the smallest products, which need
// none of these loops' planning, take gemm_host_small.hpp's path.
#pragma once

#include "core/backend.hpp"
#include "core/cpu_info.hpp"
#include "core/gemm_dims.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm_host_amx.hpp"
#include "kernels/gemm_host_blocking.hpp"
#include "kernels/gemm_host_grouped.hpp"
#include "kernels/gemm_host_pack.hpp"
#include "kernels/gemm_host_small.hpp"
#include "kernels/gemm_host_tile.hpp"
#include "kernels/host_scratch.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <type_traits>

namespace minigpu::kernels {

/// What the native host GEMM calls between its blocks of A's rows (each an MC × KC block against
/// the block of B: 1-2 ms apart in SUMMA's products at n = 4096 on 2 ranks), on the calling
/// thread only, also inside its parallel regions: SUMMA's MPI_Test, so that a broadcast in flight
/// progresses during one product without the product being cut into chunks that each pack a
/// panel again.
using BetweenBlocks = std::function<void()>;

namespace detail {

// Work below which one more thread does not pay for its wake-up (a few µs): 4 MFLOP, about
// 25 µs of one AVX-512 core.
inline constexpr double kMinFlopsPerWorker = 4.0e6;

// Columns of C per worker's slab, at least, when the threads split C by columns (see gemm_host):
// each slab repacks all of A, which its columns must repay. With 128 or 150 a slab (n = 256 and
// 300, m = 2048 and 4096, 2 threads) float32 ran 7-10 % slower than with rows shared out; with
// 512 (n = 1024) -4 to +5 %.
inline constexpr std::int64_t kMinSlabColumns = 512;
// The same where A is read in place (direct_a): no slab packs A, so narrower slabs pay. At n = 512
// on 2 threads, float32, 256 columns a slab (each worker packing its half of B) against rows shared
// out over B in place: minigpu_bench's medians 379-396 against 338-360 GFLOP/s in alternating
// runs (oneDNN 397-420 beside them); float64 n = 256 and 300, 128 and 150 a slab, 191-218 against
// 180-202 and 203-207 against 186-191 (best of 50 calls); m = 64 and 128 under n = k = 256 level
// to +6 %. Where A is packed they lost: m = 1024 and 2048, n = k = 512, float32 332-343 against
// 350-357 and 342-387 against 367-407 (2-core Xeon VM, 2026-12-01).
inline constexpr std::int64_t kMinSlabColumnsInPlace = 128;

// gemm_host's loops (the top of this file) for a tile of PR rows: A read in place where direct_a,
// k in blocks of kc_max, and `workers` threads of Exec.
template <int PR, class Exec, class S, class T>
void gemm_host_blocked(T* const cp, const S* const ap, const S* const bp, const GemmDims d,
                       const bool accumulate, const T scale, const std::int64_t workers,
                       const std::int64_t kc_max, const bool direct_a,
                       const BetweenBlocks* between_blocks = nullptr) {
  constexpr std::int64_t KS = kHostKStep<S>;
  using Tile = HostTile<T, PR>;
  constexpr std::int64_t MR = Tile::MR, NR = Tile::NR;
  static const HostBlocking blocking = host_blocking<T, S, PR>();
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
  const std::int64_t min_slab = direct_a ? detail::kMinSlabColumnsInPlace : detail::kMinSlabColumns;
  // Narrower slabs too where the B block the workers would share outgrows half of L2, so that each
  // worker's half of it stays there, unless A is far taller than B is wide: each slab reads all
  // of A again. Zen 5 VM (1 MiB L2), 2 threads, 2026-12-04, % of the FMA peak, two alternating
  // rounds of a harness (best of 15 batches): n = 384 float32 68 → 82-85, float64 71-74 → 81-84;
  // n = 512 76-78 → 85-90 and 76-77 → 84-85; n = 320 float64 67-69 → 84; n = 768 83-85 → 87-92
  // and 79-82 → 87-88; 1024 × 384 × 512 80-82 → 84-86 in float32. Taken where m = 16 n
  // (4096 × 256 × 784) it lost 3-6 %, hence m <= 4 n.
  const bool shared_b_spills =
      kc_max * std::min(d.n, blocking.nc) * std::int64_t(sizeof(S)) > cpu_caches().l2 / 2;
  const bool narrow_slabs =
      shared_b_spills && d.n >= workers * detail::kMinSlabColumnsInPlace && d.m <= 4 * d.n;
  const std::int64_t slabs = workers > 1 && (d.n >= workers * min_slab || narrow_slabs) ? workers : 1;
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
  const std::int64_t nc_max =
      balanced_block(slabs > 1 ? (col_panels + slabs - 1) / slabs * NR : d.n, blocking.nc, NR);
  // And B's full NR-column panels in place too, when all of B fits there as well: the unpacked
  // path a BLAS takes for small products (OpenBLAS's AVX-512 small-matrix kernels; native /
  // OpenBLAS at n = 64 went from 0.75 to 0.80 in float32). Only a ragged last panel is packed,
  // so that no load reads past a row of B. On one worker, only where A, B and C together fit in
  // L2, or B's panels, read again for every panel of A's rows, are pushed out by A's and C's
  // lines: float32 n = 512 (3 MiB against a 2 MiB L2) ran 199-207 GFLOP/s read in place and
  // 212-214 packed, n = 448 211-214 and 215-216, n = 384 (1.7 MiB) 225 and 220 (1 thread, Xeon
  // VM). Workers sharing B keep it in place: packing it first cost them a barrier, and n = 512 on
  // 2 threads went from 396-418 to 369-371.
  // Slabs read their columns of B in place as well where three things hold. Each worker's share
  // (all of A, its columns of B and C) fits in half of its L2; B's panels, more than half of L1,
  // would stream from L2 even packed (a_panel_in_l1); and B's rows start on cache lines, so a
  // panel's row is two lines, not three. Packing then bought nothing for its copy. 2 threads,
  // alternating rounds of 12 calls, medians of the rounds' medians, GFLOP/s (Xeon VM, 2026-12-01):
  // float32 m = 64, n = k = 256 267 → 352, float64 149 → 180; n = 256 float32 347 → 354, float64
  // 177 → 180; float32 n = 352 +2.3 %. Where a packed panel stays in L1 it lost: float64
  // 128 × 512 × 128 156 → 151; and rows off the lines: float32 n = 300 (1200-byte rows) -2.4 %.
  const std::int64_t s_bytes = sizeof(S), t_bytes = sizeof(T);
  const std::int64_t whole_product_bytes = (d.m * d.k + d.k * d.n) * s_bytes + d.m * d.n * t_bytes;
  const bool a_panel_in_l1 = direct_a && kc_max * NR * s_bytes > cpu_caches().l1d / 2;
  const bool slab_b_in_place =
      slabs > 1 && nc_max >= (col_panels + slabs - 1) / slabs * NR && a_panel_in_l1 &&
      d.m * d.k * s_bytes + (d.k * d.n * s_bytes + d.m * d.n * t_bytes) / slabs <= cpu_caches().l2 / 2 &&
      reinterpret_cast<std::uintptr_t>(bp) % 64 == 0 && d.ldb * s_bytes % 64 == 0;
  const bool direct_b =
      direct_a && std::is_same_v<S, T> && d.k * d.n * s_bytes <= cpu_caches().l2 / 2 &&
      (slab_b_in_place || (nc_max >= d.n && (workers > 1 || whole_product_bytes <= cpu_caches().l2)));
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
  // The hook, after each block of rows that the calling thread itself multiplied.
  const std::thread::id caller = std::this_thread::get_id();
  const auto progress = [=] {
    if (between_blocks && std::this_thread::get_id() == caller) (*between_blocks)();
  };

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
            detail::pack_a_panel<MR>(a_pack + q * MR * kc_packed, ap + (ic + q * MR) * d.lda + pc, d.lda,
                                     std::min(MR, rows - q * MR), kc);
          }
          const RowTiles<Tile> row_tiles(rows, direct_a && std::is_same_v<S, T>);  // C's tiles of rows
          // One panel of B meets every panel of A's block in turn, as GotoBLAS orders them, B's
          // panel kept in L1. Where A is read in place and B's panel is more than half of L1, one
          // panel of A's rows (MR strided streams) stays in L1 while B's panels pass instead: 1
          // thread, float32 n = 512 208-214 → 218-222 GFLOP/s (all 10 alternating pairs faster;
          // minigpu_bench's medians +1.3 % in 6 pairs), float64 n = 256 +4 %; 2 threads level.
          // Where B's panel fits, float64 n = 100 lost 2.5 % that way, and where A is packed 3-15 %
          // (float64 n = 512, n = 1024) (Xeon VM, 2026-12-01).
          const std::int64_t outer = a_panel_in_l1 ? m_panels : n_panels;
          const std::int64_t inner = a_panel_in_l1 ? n_panels : m_panels;
          for (std::int64_t o = 0; o < outer; ++o) {
            for (std::int64_t i = 0; i < inner; ++i) {
              const std::int64_t jr = a_panel_in_l1 ? i : o, ir = a_panel_in_l1 ? o : i;
              const int cols = static_cast<int>(std::min(NR, nc - jr * NR));
              const std::int64_t r0 = row_tiles.first_row(ir);
              const int tile_rows = row_tiles.height(ir);
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
                b_in_place
                    ? detail::tile_for<true, true, PR>(kc, a_rows, b_panel, ldb, c_tile, d.ldc, tile_rows,
                                                       cols, load_c, scale, d.lda, a_panel_in_l1)
                    : detail::tile_for<true, false, PR>(kc, a_rows, b_panel, ldb, c_tile, d.ldc, tile_rows,
                                                        cols, load_c, scale, d.lda);
              } else {
                const S* const a_panel = a_pack + ir * MR * kc_packed;
                b_in_place ? detail::tile_for<false, true, PR>(kc, a_panel, b_panel, ldb, c_tile, d.ldc,
                                                               tile_rows, cols, load_c, scale, 0)
                           : detail::tile_for<false, false, PR>(kc, a_panel, b_panel, ldb, c_tile, d.ldc,
                                                                tile_rows, cols, load_c, scale, 0);
              }
            }
          }
        };
        if (!row_parallel) {
          for (std::int64_t q = 0; q < n_panels; ++q) pack_b(q);
          for (std::int64_t blk = 0; blk < m_blocks; ++blk) {
            row_block(blk);
            progress();
          }
        } else {
          // B wholly read in place leaves nothing to pack: no launch, no barrier (float32 n = 256 on
          // 2 threads, A in place, 440-443 → 449-451 GFLOP/s).
          if (!direct_b || nc % NR != 0)
            Kokkos::parallel_for("gemm::host_pack_b", Policy(0, n_panels), pack_b);
          Kokkos::parallel_for("gemm::host_tiled", DynamicPolicy(0, m_blocks, Kokkos::ChunkSize(1)),
                               [=](const std::int64_t blk) {
                                 row_block(blk);
                                 progress();
                               });
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

}  // namespace detail

/// C = A·B (or C += A·B when `accumulate`) for row-major Views in host-accessible memory
/// (unit stride; rows lda/ldb/ldc long, see GemmDims). A and B share C's type, or are bfloat16
/// with C float where kHostBf16Dot. With `alpha`, C = α·A·B (+ C): α is read where it lies,
/// in host-accessible memory, when the product starts, so an earlier kernel may have written it.
/// `between_blocks` (BetweenBlocks) runs between blocks of the cache-blocked loops; products
/// small enough for gemm_host_small's path, and AMX's, have no blocks and do not call it.
template <class CView, class AView, class BView>
void gemm_host(const CView& c, const AView& a, const BView& b, GemmDims d, bool accumulate,
               const typename CView::non_const_value_type* alpha = nullptr,
               const BetweenBlocks* between_blocks = nullptr) {
  using T = typename CView::non_const_value_type;
  using S = typename AView::non_const_value_type;
  static_assert(std::is_same_v<S, typename BView::non_const_value_type>, "gemm_host: A and B share a type");
  static_assert(
      std::is_same_v<S, T> || (kHostBf16Dot && std::is_same_v<S, bfloat16> && std::is_same_v<T, float>),
      "gemm_host: operands of C's type, or bfloat16 into float on a CPU with AVX512_BF16");
  constexpr std::int64_t KS = detail::kHostKStep<S>;  // k is packed in steps of KS (pairs for bfloat16)
  using Exec = typename CView::execution_space;
  static_assert(Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible,
                "gemm_host runs its loops on C's execution space, which must be a host space");
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
  static const detail::HostBlocking blocking = detail::host_blocking<T, S>();  // either tile's KC
  const std::int64_t kc_cap = blocking.kc;
  // Every worker needs a block of rows: with few rows per thread, smaller MC blocks beat idle ones.
  // A product too small to repay waking a thread for these loops runs on one: a 100×100 step
  // (2 MFLOP) took longer on 2 threads than on 1 through them (Xeon VM, 2026-11-25). The smallest
  // products take their own path, which splits them at a lower bar (kMinSmallFlopsPerWorker).
  const double flops = 2.0 * static_cast<double>(d.m) * static_cast<double>(d.n) * static_cast<double>(d.k);
  // (Exec() is only asked when a second worker could pay: each instance costs an allocation, and
  // a 64×64 product takes 5 µs.)
  const auto by_work = static_cast<std::int64_t>(flops / detail::kMinFlopsPerWorker);
  const std::int64_t workers =
      by_work < 2 ? 1 : std::clamp<std::int64_t>(by_work, 1, std::max(1, Exec().concurrency()));
  if constexpr (std::is_same_v<S, bfloat16>) {  // AMX's tiles where the CPU, OS and shape allow
    if (gemm_host_amx<Exec>(cp, ap, bp, d, accumulate, scale, workers)) return;
  }
  std::int64_t kc_max = detail::balanced_block(d.k, kc_cap, KS);
  // Small products (all of k in one pass, A within half of L2) read A's full MR-row panels in
  // place, and a last panel that a shorter tile takes exactly (n = 64: 4 rows; native /
  // OpenBLAS went from 0.80 to 0.85 in float32): packing them is a scalar transpose that cost about a quarter
  // of a 100×100 product, and is only repaid when a panel is reused from cache across many column panels.
  // Half, not a quarter: float64 at n = 256 on 2 threads went from 69 % to 80 % of the FMA peak.
  const bool direct_a = kc_max == d.k && d.k % KS == 0 &&
                        d.m * d.k * static_cast<std::int64_t>(sizeof(S)) <= cpu_caches().l2 / 2;
  if constexpr (std::is_same_v<S, T>) {  // the smallest products skip the plan (gemm_host_small.hpp)
    if (workers == 1) {
      if (const int last_group = detail::small_product_plan<T>(d, direct_a, blocking.nc); last_group > 0) {
        if (const auto split = detail::small_product_workers<Exec, T>(d, flops); split > 1)
          return detail::gemm_host_small_rows<Exec>(cp, ap, bp, d, accumulate, scale, last_group, split);
        return detail::gemm_host_small(cp, ap, bp, d, accumulate, scale, last_group);
      }
    }
  }
  // A packed, a k up to one_pass_k deep runs in one block (gemm_host_blocking.hpp); A read in
  // place keeps the blocks it was measured with.
  if (!direct_a && d.k <= blocking.one_pass_k) kc_max = (d.k + KS - 1) / KS * KS;
  // Packed, A takes the taller tile (kHostPackedRows), for operands of C's type.
  constexpr int kInPlaceRows = detail::HostTile<T>::MR;
  constexpr int kPackedRows = std::is_same_v<S, T> ? detail::kHostPackedRows : kInPlaceRows;
  if (direct_a) {
    detail::gemm_host_blocked<kInPlaceRows, Exec>(cp, ap, bp, d, accumulate, scale, workers, kc_max, true,
                                                  between_blocks);
  } else {
    detail::gemm_host_blocked<kPackedRows, Exec>(cp, ap, bp, d, accumulate, scale, workers, kc_max, false,
                                                 between_blocks);
  }
}

}  // namespace minigpu::kernels
