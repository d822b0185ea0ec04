// gemm_host's packing: A's MR-row and B's NR-column micro-panels, copied into the order the
// micro-kernel reads them (gemm_host_tile.hpp) and padded with zeros at ragged edges. B's rows
// are copied as they are; A's panel is a transpose, MR rows of A read into k-major order.
#pragma once

#include "core/backend.hpp"
#include "kernels/gemm_host_bf16.hpp"
#include "kernels/gemm_host_tile.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

// A's transpose in registers needs vector types and __builtin_shufflevector (GCC 12, Clang).
#if defined(MINIGPU_HOST_VECTOR_TYPES) && defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define MINIGPU_PACK_A_IN_REGISTERS 1
#endif
#endif

namespace minigpu::kernels::detail {

#if defined(MINIGPU_PACK_A_IN_REGISTERS)
// One stage of a W×W transpose in registers: rows i and i + B exchange their off-diagonal blocks
// of B lanes, which swaps bit B of an element's row with bit B of its lane. After the stages
// B = W/2 ... 1 every element (i, j) sits at (j, i). The lanes of __builtin_shufflevector(x, y):
// 0..W-1 from x, W..2W-1 from y.
template <int W, int B>
constexpr int transposed_lane(int lane, bool upper) {
  const int group = lane & ~(2 * B - 1), offset = lane & (2 * B - 1);
  if (!upper) return offset < B ? group + offset : W + group + offset - B;
  return offset < B ? group + B + offset : W + group + offset;
}
template <int W, int B, class V, std::size_t... L>
void exchange_blocks(V& x, V& y, std::index_sequence<L...>) {
  const V lower = __builtin_shufflevector(x, y, transposed_lane<W, B>(static_cast<int>(L), false)...);
  y = __builtin_shufflevector(x, y, transposed_lane<W, B>(static_cast<int>(L), true)...);
  x = lower;
}
template <int W, int B, class V>
void transpose_stage(V (&rows)[W]) {
  for (int i = 0; i < W; ++i) {
    if ((i & B) == 0) exchange_blocks<W, B>(rows[i], rows[i + B], std::make_index_sequence<W>());
  }
  if constexpr (B > 1) transpose_stage<W, B / 2>(rows);
}

// W steps of k of a full MR-row panel at once: each group of up to W rows of A is loaded as W
// vectors (rows past the panel repeat its first), transposed in registers, and the valid lanes
// of each column stored at their place in the k-major panel. The scalar transpose it replaced
// moved one element per load and store; on 2 threads each worker packs all of A for its slab,
// 4-5 % of float64 n = 1024's time. In `minigpu run`, the binaries alternating (Zen 5 VM,
// 2026-12-01, medians of 8 rounds on 2 threads, GFLOP/s): float64 n = 1024 170.6 → 175.2 and
// 179.8 → 180.4, n = 2048 168.2 → 173.4 and 183.1 → 185.8; float32 n = 1024 320 → 344 and
// 369 → 378; on 1 thread (6 rounds) +0.8 to +3.2 %, float64 n = 2048 97.6 → 100.7.
template <int MR, class T>
void pack_a_columns(T* dst, const T* a, std::int64_t lda) {
  constexpr int W = HostTile<T>::W;
  using V = typename HostVec<T>::type;
  for (int g = 0; g < MR; g += W) {
    V rows[W];
    for (int r = 0; r < W; ++r) std::memcpy(&rows[r], a + (g + r < MR ? g + r : 0) * lda, sizeof(V));
    transpose_stage<W, W / 2>(rows);
    // A fixed size where the group is whole, so that each column is one vector store.
    constexpr int kWhole = MR < W ? MR : W;
    const int valid = MR - g < W ? MR - g : W;
    for (int c = 0; c < W; ++c) {
      if (valid == kWhole) {
        std::memcpy(dst + c * MR + g, &rows[c], kWhole * sizeof(T));
      } else {
        std::memcpy(dst + c * MR + g, &rows[c], static_cast<std::size_t>(valid) * sizeof(T));
      }
    }
  }
}
#endif

// rows×kc of A (rows ≤ MR) as one micro-panel: MR values of a column of A per step of k. A full
// panel is transposed W steps of k at a time in registers (pack_a_columns); the rest walks k
// outermost, which keeps the stores contiguous (the MR row streams are read in parallel) and
// measured 1.3-1.5x faster than row by row. bfloat16 operands are packed in pairs for float's
// tile (gemm_host_bf16.hpp).
template <int MR, class T>
void pack_a_panel(T* dst, const T* a, std::int64_t lda, std::int64_t rows, std::int64_t kc) {
  std::int64_t p = 0;
  if constexpr (std::is_same_v<T, bfloat16>) {
    pack_a_panel_bf16<MR>(dst, a, lda, rows, kc);
  } else if (rows == MR) {
#if defined(MINIGPU_PACK_A_IN_REGISTERS)
    constexpr int W = HostTile<T>::W;
    for (; p + W <= kc; p += W, dst += W * MR) pack_a_columns<MR>(dst, a + p, lda);
#endif
    for (; p < kc; ++p, dst += MR) {
      for (int r = 0; r < MR; ++r) dst[r] = a[r * lda + p];
    }
  } else {
    for (; p < kc; ++p, dst += MR) {
      for (int r = 0; r < MR; ++r) dst[r] = r < rows ? a[r * lda + p] : T(0);
    }
  }
}

// kc×cols of B (cols ≤ NR) as one micro-panel: NR values of a row of B per step of k. A
// fixed-size memcpy, because element copies between two T* came out as scalar moves (aliasing).
// A ragged panel is padded only as far as its tile reads (columns_read: half a vector, one, or
// all NR): n = 100 in float32 pads 8 columns a row, not 32.
template <class T>
void pack_b_panel(T* dst, const T* b, std::int64_t ldb, std::int64_t cols, std::int64_t kc) {
  constexpr int NR = HostTile<T>::NR;
  if (cols == NR) {
    for (std::int64_t p = 0; p < kc; ++p, dst += NR, b += ldb) std::memcpy(dst, b, NR * sizeof(T));
    return;
  }
  const int read = columns_read<T>(static_cast<int>(cols));
  for (std::int64_t p = 0; p < kc; ++p, dst += NR, b += ldb) {
    for (int j = 0; j < read; ++j) dst[j] = j < cols ? b[j] : T(0);
  }
}

// bfloat16 operands, packed in pairs for float's tile (gemm_host_bf16.hpp): an overload the
// template above chooses by the operands' type.
inline void pack_b_panel(bfloat16* dst, const bfloat16* b, std::int64_t ldb, std::int64_t cols,
                         std::int64_t kc) {
  pack_b_panel_bf16<HostTile<float>::NR>(dst, b, ldb, cols, kc);
}

}  // namespace minigpu::kernels::detail
