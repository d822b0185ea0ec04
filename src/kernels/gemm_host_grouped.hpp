// gemm_host's tile for a narrow last panel of B, when A is read in place: each vector holds 4
// consecutive steps of k for a quarter of a vector's columns, so that the panel's few columns
// fill whole vectors.
//
// n = 100 in float32 (AVX-512, 16 lanes) leaves 4 columns after three 32-column panels. The
// half-vector tile (gemm_host_tile.hpp) multiplies them as 8 lanes, half of them padding, with a
// broadcast of A for every FMA: 12 rows, k = 100 took 678-727 cycles against 600 due, load-bound.
// Grouped, one 128-bit broadcast of A[i, p..p+3] meets B packed as
//   lane 4·j + g  =  B[p + g, j]            (j < W/4 columns, g < 4 steps of k)
// so one FMA does 4 steps of k for all 4 columns: 438-482 cycles for the same tile (300 due),
// and native / OpenBLAS at n = 100 went from 0.926 to 0.973. After the k loop, each column's
// four partial sums are folded within their lanes (two shuffles) and picked out.
// A panel of up to half a vector's columns takes two such vectors, lanes 4·j + g of the pair, for
// one broadcast of A a row: floats' 5-8 columns, and doubles' 3-4 (a 256-bit broadcast), which the
// half-vector tile also ran load-bound.
//
// Only where k is a multiple of 4 and every tile of the panel reads its rows of A in place (a
// packed A panel holds a column of A per step of k, not a row): gemm_host then packs the panel in
// this layout alone.
#pragma once

#include "core/backend.hpp"
#include "core/cpu_info.hpp"
#include "kernels/gemm_host_tile.hpp"

#if defined(MINIGPU_HOST_VECTOR_TYPES) && defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <utility>

namespace minigpu::kernels::detail {

// Vectors of the grouped tile for `cols` columns, a quarter of a vector's lanes each. A vector of
// fewer than 4 lanes (doubles in SSE2's 128 bits) never takes the grouped tile (k_group), but
// pack_b_grouped is still compiled for it: 1 column a vector there, not a division by zero.
template <class T>
constexpr int grouped_vectors(int cols) {
  constexpr int C = HostTile<T>::W >= 4 ? HostTile<T>::W / 4 : 1;
  return (cols + C - 1) / C;
}

// Steps of k the grouped tile puts in a vector for a last panel of `cols` columns: 4 where they
// fill one 512-bit vector of floats or two of either type (one 128- or 256-bit broadcast of A a
// row for both); 1 where no grouped tile serves them. Two vectors, measured on Zen 5 (harness of
// interleaved calls, native / OpenBLAS's Cooperlake kernels, 1 thread): float32 n = 72 (8
// columns) 0.87 → 0.97, n = 40 0.90 → 1.01; float64 n = 100 (4 columns) 0.93 → 0.97-0.99, n = 68
// 0.91-0.94 → 0.96. Left out: one vector of doubles (1-2 columns; n = 66 0.84 → 0.81, n = 98
// 0.87 → 0.83, where the fold outweighs the few FMAs it saves), and pairs of floats.
template <class T>
constexpr int k_group(int cols) {
#if defined(MINIGPU_HOST_VECTOR_TYPES) && defined(__AVX512F__)
  const int vectors = grouped_vectors<T>(cols);
  if (kHostVectorBytes == 64 && (vectors == 2 || (vectors == 1 && sizeof(T) == 4))) return 4;
#endif
  (void)cols;
  return 1;
}

// B's kc×cols panel (kc a multiple of G) in the grouped layout: a vector or two per G steps of k,
// columns past `cols` zero.
template <class T>
void pack_b_grouped(T* dst, const T* b, std::int64_t ldb, int cols, std::int64_t kc, int group) {
  constexpr int W = HostTile<T>::W;
  const int width = grouped_vectors<T>(cols) * W / group;
  for (std::int64_t p = 0; p < kc; p += group, dst += width * group) {
    for (int j = 0; j < width; ++j) {
      for (int g = 0; g < group; ++g) dst[j * group + g] = j < cols ? b[(p + g) * ldb + j] : T(0);
    }
  }
}

#if defined(MINIGPU_HOST_VECTOR_TYPES)
template <class T>
using GroupedVec = typename HostVec<T>::type;

// A[i, p..p+3] in every group of 4 lanes: one 128-bit (float) or 256-bit (double) broadcast.
template <class T>
inline GroupedVec<T> broadcast_four(const T* a) {
#if defined(__AVX512F__)
  static_assert(kHostVectorBytes == 64, "k_group admits AVX-512 alone");
  // The zero-masked form with every lane kept: the same instruction, without the undefined source
  // operand GCC 12 warns about (-Wmaybe-uninitialized) in _mm512_broadcast_f32x4.
  if constexpr (sizeof(T) == 4) {
    const __m128 four = _mm_loadu_ps(reinterpret_cast<const float*>(a));
    return reinterpret_cast<GroupedVec<T>>(
        _mm512_maskz_broadcast_f32x4(static_cast<__mmask16>(0xFFFF), four));
  } else {
    const __m256d four = _mm256_loadu_pd(reinterpret_cast<const double*>(a));
    return reinterpret_cast<GroupedVec<T>>(_mm512_maskz_broadcast_f64x4(static_cast<__mmask8>(0xFF), four));
  }
#else
  static_assert(sizeof(T) == 0, "k_group admits AVX-512 alone");
#endif
}

// Each lane's group of 4 summed into the group's first lane; then those firsts, in order.
template <class T, std::size_t... I>
inline GroupedVec<T> fold_fours(GroupedVec<T> x, std::index_sequence<I...>) {
  x += __builtin_shufflevector(x, x, static_cast<int>(I ^ 2)...);
  return x + __builtin_shufflevector(x, x, static_cast<int>(I ^ 1)...);
}
template <class T, std::size_t... J>
inline auto group_firsts(GroupedVec<T> x, std::index_sequence<J...>) {
  return __builtin_shufflevector(x, x, static_cast<int>(J * 4)...);
}

// One MT-row tile of C's last `cols` columns (cols <= NV·W/4), MT rows of A read in place lda apart.
template <class T, int MT, int NV>
inline void micro_kernel_grouped(std::int64_t kc, const T* __restrict__ a, std::int64_t lda,
                                 const T* __restrict__ b, T* c, std::int64_t ldc, int cols, bool load_c,
                                 T alpha) {
  constexpr int G = 4, W = HostTile<T>::W, C = W / G;
  GroupedVec<T> acc[MT][NV] = {};
  // Rows in groups of three, one pointer each, as micro_kernel reads A in place.
  constexpr int R3 = (MT + 2) / 3;
  const T* ag[R3];
#pragma GCC unroll 4
  for (int g = 0; g < R3; ++g) ag[g] = a + 3 * g * lda;
  for (std::int64_t p = 0; p < kc; p += G, b += NV * W) {
    GroupedVec<T> bv[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) __builtin_memcpy(&bv[v], b + v * W, sizeof bv[v]);
#pragma GCC unroll 16
    for (int r = 0; r < MT; ++r) {
      const GroupedVec<T> ar = broadcast_four(ag[r / 3] + (r % 3) * lda);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[r][v] += ar * bv[v];
    }
#pragma GCC unroll 4
    for (int g = 0; g < R3; ++g) ag[g] += G;
  }
#pragma GCC unroll 16
  for (int r = 0; r < MT; ++r) {
    T* const row = c + r * ldc;
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      auto sums = group_firsts<T>(fold_fours<T>(acc[r][v], std::make_index_sequence<W>{}),
                                  std::make_index_sequence<C>{});
      sums *= alpha;  // C = α·acc (+ C): a multiply a row of the tile
      T* const out = row + v * C;
      if (cols == NV * C) {
        if (load_c) {
          decltype(sums) old;
          __builtin_memcpy(&old, out, sizeof old);
          sums += old;
        }
        __builtin_memcpy(out, &sums, sizeof sums);
      } else {
        for (int j = 0; j < C && v * C + j < cols; ++j) out[j] = load_c ? out[j] + sums[j] : sums[j];
      }
    }
  }
}
#endif

#if defined(MINIGPU_HOST_VECTOR_TYPES)
// The grouped tile of NV vectors in the rows' own height: MR, M2 or M1.
template <class T, int NV>
inline void tile_grouped_rows(std::int64_t kc, const T* a, std::int64_t lda, const T* b, T* c,
                              std::int64_t ldc, int rows, int cols, bool load_c, T alpha) {
  using Tile = HostTile<T>;
  if (rows == Tile::M1)
    return micro_kernel_grouped<T, Tile::M1, NV>(kc, a, lda, b, c, ldc, cols, load_c, alpha);
  if (rows == Tile::M2)
    return micro_kernel_grouped<T, Tile::M2, NV>(kc, a, lda, b, c, ldc, cols, load_c, alpha);
  micro_kernel_grouped<T, Tile::MR, NV>(kc, a, lda, b, c, ldc, cols, load_c, alpha);
}
#endif

// The grouped tile for `rows` (MR, M2 or M1: rows_in_place) × `cols` of C, k_group<T>(cols) == 4.
template <class T>
inline void tile_grouped(std::int64_t kc, const T* a, std::int64_t lda, const T* b, T* c, std::int64_t ldc,
                         int rows, int cols, bool load_c, T alpha) {
#if defined(MINIGPU_HOST_VECTOR_TYPES)
  if constexpr (k_group<T>(HostTile<T>::W / 2) == 4) {
    if (grouped_vectors<T>(cols) == 2)
      return tile_grouped_rows<T, 2>(kc, a, lda, b, c, ldc, rows, cols, load_c, alpha);
    if constexpr (k_group<T>(1) == 4)
      return tile_grouped_rows<T, 1>(kc, a, lda, b, c, ldc, rows, cols, load_c, alpha);
  }
#endif
  (void)kc, (void)a, (void)lda, (void)b, (void)c, (void)ldc, (void)rows, (void)cols, (void)load_c,
      (void)alpha;
  std::abort();  // gemm_host calls it only where k_group<T>(cols) > 1
}

}  // namespace minigpu::kernels::detail
