// gemm_host's bfloat16 product on AMX tiles (Intel Xeons since Sapphire Rapids): C (float) = α·A·B
// (+ C) for bfloat16 A and B. A tile is 16 rows of 64 bytes in one of 8 tile registers, and one
// TDPBF16PS multiplies a 16×32 tile of A by a 32×16 tile of B (its rows pairs of k, as
// gemm_host_bf16.hpp packs B) into a 16×16 float tile of C: 16,384 flops, where one vdpbf16ps
// does 64. Each 32×32 block of C stays in 4 tiles for all of k, against 2 tiles of A read in
// place (rows lda apart) and 2 of B's packed panel per 32 steps of k:
//   flops = 2·m·n·k; each C block reads 32·k values of A and of B (4 KiB a step) for 65,536
//   flops, so L2 must feed 64 bytes a cycle at the tile unit's rate: this kernel is L2-bound.
// B is packed KC = all of k deep, in column blocks that fit half of L2, as 32-column panels of
// pairs; C's blocks are handed out to the threads by block row. Ragged edges are padded with
// zeros (a tile reads 64 bytes a row): B's panels past n and past k in the packing; A's rows are
// read in place for whole steps of k, a k that is not whole steps ends on a zero-padded 32×32
// copy of the block's last step, and a last block of fewer than 32 rows is copied whole.
#pragma once

#include "core/cpu_info.hpp"
#include "core/gemm_dims.hpp"
#include "core/low_precision.hpp"
#include "kernels/gemm_host_bf16.hpp"
#include "kernels/host_scratch.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(MINIGPU_HOST_BF16_DOT) && \
    !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#include <immintrin.h>
#define MINIGPU_HOST_AMX 1
#endif

namespace minigpu::kernels {

namespace detail {

/// C's block: 2 × 2 tiles of 16 × 16 floats; k goes 32 bfloat16 values (one tile row) at a time.
inline constexpr std::int64_t kAmxBlock = 32;

/// Products with a side under this take the vdpbf16ps kernel: a tile is 16 rows by 32 steps of
/// k, and a thinner product padded to it would multiply mostly zeros. From 32 up the tiles ran
/// ahead of vdpbf16ps (n = 64 79 against 75 GFLOP/s, n = 100 103 against 85; Xeon VM, 1 thread).
inline constexpr std::int64_t kAmxMinDim = 32;

#if defined(MINIGPU_HOST_AMX)
// LDTILECFG's 64 bytes, palette 1: tiles 0-3 C's block, 4-5 A's two 16-row halves, 6-7 B's two
// 16-column halves; every tile 16 rows of 64 bytes.
struct alignas(64) AmxConfig {
  std::uint8_t palette = 1, start_row = 0, reserved[14] = {};
  std::uint16_t colsb[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  std::uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};

// One step of k into C's 4 tiles: A's 32 rows of 32 values (rows `lda` values apart) by B's
// 16 pair rows of the panel (128 bytes each: columns 0-15 in its first 64, 16-31 in the next).
inline void amx_step(const bfloat16* a, std::int64_t lda, const bfloat16* b) {
  const std::int64_t a_stride = lda * static_cast<std::int64_t>(sizeof(bfloat16));
  _tile_loadd(4, a, a_stride);
  _tile_loadd(5, a + 16 * lda, a_stride);
  _tile_loadd(6, b, 128);
  _tile_loadd(7, b + 32, 128);
  _tile_dpbf16ps(0, 4, 6);
  _tile_dpbf16ps(1, 4, 7);
  _tile_dpbf16ps(2, 5, 6);
  _tile_dpbf16ps(3, 5, 7);
}

// One 32×32 block of C into `out` (32 floats a row): A's 32 rows lda apart for the first k
// (whole steps), then, if `tail`, one more step from it (32 rows of 32 values, zeros past A's k);
// B's packed panel of rows of 32 pairs (128 bytes a row: columns 0-15 in its first 64, 16-31 in
// the next), zeros past A's k.
inline void amx_block(std::int64_t k, const bfloat16* a, std::int64_t lda, const bfloat16* tail,
                      const bfloat16* b, float* out) {
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (std::int64_t p = 0; p < k; p += kAmxBlock) amx_step(a + p, lda, b + p * kAmxBlock);
  if (tail != nullptr) amx_step(tail, kAmxBlock, b + k * kAmxBlock);
  _tile_stored(0, out, 128);
  _tile_stored(1, out + 16, 128);
  _tile_stored(2, out + 16 * kAmxBlock, 128);
  _tile_stored(3, out + 16 * kAmxBlock + 16, 128);
}
#endif

}  // namespace detail

/// C = α·A·B (+ C when `accumulate`) for bfloat16 A, B and float C (raw row-major pointers with
/// d's leading dimensions) on AMX tiles, the work shared by Exec's threads. False, and nothing
/// written, where the build, the CPU or the OS do not allow it, or a dimension is under
/// kAmxMinDim.
template <class Exec>
bool gemm_host_amx([[maybe_unused]] float* c, [[maybe_unused]] const bfloat16* a,
                   [[maybe_unused]] const bfloat16* b, [[maybe_unused]] const GemmDims& d,
                   [[maybe_unused]] bool accumulate, [[maybe_unused]] float alpha,
                   [[maybe_unused]] std::int64_t workers) {
#if defined(MINIGPU_HOST_AMX)
  using detail::kAmxBlock;
  if (std::min({d.m, d.n, d.k}) < detail::kAmxMinDim || !host_amx_bf16()) return false;
  const std::int64_t kp = (d.k + kAmxBlock - 1) / kAmxBlock * kAmxBlock;  // k in whole steps, zeros after
  // B's columns in blocks whose packed panels fill at most half of L2, each panel read once per
  // block row of C from there.
  const std::int64_t nc_cap = std::max<std::int64_t>(
      kAmxBlock,
      cpu_caches().l2 / 2 / (kp * static_cast<std::int64_t>(sizeof(bfloat16))) / kAmxBlock * kAmxBlock);
  const std::int64_t nc_max = std::min(nc_cap, (d.n + kAmxBlock - 1) / kAmxBlock * kAmxBlock);
  bfloat16* const bp = detail::host_scratch<bfloat16, 1>(kp * nc_max);  // the caller's, read by all workers
  const std::int64_t row_blocks = (d.m + kAmxBlock - 1) / kAmxBlock;
  using Policy =
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<std::int64_t>>;
  for (std::int64_t jc = 0; jc < d.n; jc += nc_max) {
    const std::int64_t nc = std::min(nc_max, d.n - jc), panels = (nc + kAmxBlock - 1) / kAmxBlock;
    // A panel's columns past n and pairs past k are zeros, so the padded sums are the true ones.
    const auto pack = [=](const std::int64_t q) {
      bfloat16* const panel = bp + q * kp * kAmxBlock;
      detail::pack_b_panel_bf16<kAmxBlock>(panel, b + jc + q * kAmxBlock, d.ldb,
                                           std::min(kAmxBlock, nc - q * kAmxBlock), d.k);
      const std::int64_t filled = (d.k + 1) / 2 * 2 * kAmxBlock;
      std::fill(panel + filled, panel + kp * kAmxBlock, bfloat16());
    };
    const auto rows = [=](const std::int64_t ib) {
      const std::int64_t r0 = ib * kAmxBlock, nrows = std::min(kAmxBlock, d.m - r0);
      // No tile may read past a row of A or past its last row: a block of 32 rows is read in
      // place for k's whole steps and its last, partial step from a zero-padded copy (2 KiB); a
      // last block of fewer rows is copied whole, zero-padded to 32 rows of kp.
      const bfloat16* rows_of_a = a + r0 * d.lda;
      const bfloat16* tail = nullptr;
      std::int64_t lda = d.lda, k_in_place = d.k / kAmxBlock * kAmxBlock;
      const bool copy_all = nrows < kAmxBlock;
      if (copy_all || k_in_place != d.k) {
        const std::int64_t width = copy_all ? kp : kAmxBlock, from = copy_all ? 0 : k_in_place;
        bfloat16* const copy = detail::host_scratch<bfloat16, 0>(kAmxBlock * width);
        for (std::int64_t r = 0; r < kAmxBlock; ++r) {
          bfloat16* const row = copy + r * width;
          const std::int64_t values = r < nrows ? d.k - from : 0;
          if (values > 0) std::copy_n(rows_of_a + r * d.lda + from, values, row);
          std::fill(row + values, row + width, bfloat16());
        }
        if (copy_all) {
          rows_of_a = copy;
          lda = kp;
          k_in_place = kp;
        } else {
          tail = copy;
        }
      }
      const detail::AmxConfig config;
      _tile_loadconfig(&config);  // per thread: the tile registers are a thread's state
      alignas(64) float out[kAmxBlock * kAmxBlock];
      for (std::int64_t q = 0; q < panels; ++q) {
        detail::amx_block(k_in_place, rows_of_a, lda, tail, bp + q * kp * kAmxBlock, out);
        float* const cb = c + r0 * d.ldc + jc + q * kAmxBlock;
        const std::int64_t ncols = std::min(kAmxBlock, nc - q * kAmxBlock);
        for (std::int64_t r = 0; r < nrows; ++r) {
          float* const row = cb + r * d.ldc;
          const float* const o = out + r * kAmxBlock;
          if (accumulate) {
            for (std::int64_t j = 0; j < ncols; ++j) row[j] += alpha * o[j];
          } else {
            for (std::int64_t j = 0; j < ncols; ++j) row[j] = alpha * o[j];
          }
        }
      }
      _tile_release();  // a thread holding tile state makes every context switch save 8 KiB more
    };
    if (workers > 1) {
      Kokkos::parallel_for("gemm::host_amx_pack_b", Policy(0, panels), pack);
      Kokkos::parallel_for("gemm::host_amx", Policy(0, row_blocks), rows);
      Exec().fence();
    } else {
      for (std::int64_t q = 0; q < panels; ++q) pack(q);
      for (std::int64_t ib = 0; ib < row_blocks; ++ib) rows(ib);
    }
  }
  return true;
#else
  return false;
#endif
}

}  // namespace minigpu::kernels
