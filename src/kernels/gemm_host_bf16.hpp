// gemm_host's bfloat16 operands: A and B stored in bfloat16, C in float, on CPUs with AVX512_BF16
// (Cooper Lake and Sapphire Rapids Xeons, Zen 4 and 5). One vdpbf16ps takes 32 bfloat16 pairs
// and adds both products of each pair to one of 16 float lanes (each product exact in float,
// the sums rounded in float, subnormals flushed): twice the flops of an FMA on float for the
// same register, the rate PyTorch's and oneDNN's bfloat16 GEMMs run at. So k advances in pairs:
//   B's micro-panel   k/2 rows of NR pairs {B[2p][j], B[2p+1][j]} (an odd k padded with a 0 row)
//   A's micro-panel   k/2 rows of MR pairs {A[r][2p], A[r][2p+1]}: 32-bit words, so row-major A
//                     already holds each pair side by side and small products read it in place
// The tile and the blocking are float's (HostTile<float>); C is float and rounded once after
// the whole sum, by the caller, as mixed precision does. Without AVX512_BF16 in the build
// (kHostBf16Dot false) bfloat16 products are widened to float instead (matmul_widened.hpp).
#pragma once

#include "core/cpu_info.hpp"
#include "core/low_precision.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__AVX512BF16__) && defined(__AVX512F__)
#include <immintrin.h>
#define MINIGPU_HOST_BF16_DOT 1
#endif

namespace minigpu::kernels {

#if defined(MINIGPU_HOST_BF16_DOT)
inline constexpr bool kHostBf16Dot = true;
#else
inline constexpr bool kHostBf16Dot = false;
#endif

namespace detail {

/// Steps of k one micro-kernel iteration consumes: pairs for bfloat16, one otherwise.
template <class S>
inline constexpr int kHostKStep = std::is_same_v<S, bfloat16> ? 2 : 1;

inline std::uint32_t bf16_pair(const bfloat16* p, bool second_exists) {
  return std::uint32_t(p[0].bits) | (second_exists ? std::uint32_t(p[1].bits) << 16 : 0u);
}

// rows×kc of A (rows ≤ MR) as MR pairs per pair of k; the padded half of an odd kc's last pair
// and the padded rows are zero.
template <int MR>
void pack_a_panel_bf16(bfloat16* dst, const bfloat16* a, std::int64_t lda, std::int64_t rows,
                       std::int64_t kc) {
  auto* out = reinterpret_cast<std::uint32_t*>(dst);
  for (std::int64_t p = 0; p < kc; p += 2, out += MR) {
    for (int r = 0; r < MR; ++r) out[r] = r < rows ? bf16_pair(a + r * lda + p, p + 1 < kc) : 0u;
  }
}

// kc×cols of B (cols ≤ NR) as NR pairs per pair of k, the two rows interleaved.
template <int NR>
void pack_b_panel_bf16(bfloat16* dst, const bfloat16* b, std::int64_t ldb, std::int64_t cols,
                       std::int64_t kc) {
  for (std::int64_t p = 0; p < kc; p += 2, dst += 2 * NR, b += 2 * ldb) {
    const bool second = p + 1 < kc;
    for (int j = 0; j < NR; ++j) {
      dst[2 * j] = j < cols ? b[j] : bfloat16();
      dst[2 * j + 1] = j < cols && second ? b[ldb + j] : bfloat16();
    }
  }
}

#if defined(MINIGPU_HOST_BF16_DOT)
// One MR×(NV·16) tile of float C from packed bfloat16 panels (DirectA: MR rows of A read in
// place, lda apart, kc even): the float kernel's shape, with vdpbf16ps for its FMA.
template <int MR, int NR, bool DirectA, int NV>
inline void micro_kernel_bf16(std::int64_t kc, const bfloat16* __restrict__ a, const bfloat16* __restrict__ b,
                              float* c, std::int64_t ldc, int rows, int cols, bool load_c, float alpha,
                              std::int64_t lda) {
  constexpr int W = 16;
  for (int r = 0; r < rows; ++r) {
    __builtin_prefetch(c + r * ldc, 1);
    __builtin_prefetch(c + r * ldc + cols - 1, 1);
  }
  __m512 acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_setzero_ps();
  const std::int64_t a_step = DirectA ? 2 : 2 * MR;
  for (std::int64_t p = 0; p < kc; p += 2, a += a_step, b += 2 * NR) {
    __m512bh bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + v * 2 * W);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      std::uint32_t word;
      std::memcpy(&word, DirectA ? a + r * lda : a + 2 * r, sizeof word);
      const __m512bh ar = (__m512bh)_mm512_set1_epi32(static_cast<int>(word));
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], ar, bv[v]);
    }
  }
  if (alpha != 1.0f) {  // C = α·acc (+ C), as the float kernel
    const __m512 scale = _mm512_set1_ps(alpha);
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_mul_ps(acc[r][v], scale);
  }
  if (rows == MR && cols == NV * W) {  // as the float kernel: all of C's loads before any store
    if (load_c) {
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v)
          acc[r][v] = _mm512_add_ps(acc[r][v], _mm512_loadu_ps(c + r * ldc + v * W));
    }
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) _mm512_storeu_ps(c + r * ldc + v * W, acc[r][v]);
    return;
  }
  alignas(64) float tile[MR * NR];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) _mm512_store_ps(tile + r * NR + v * W, acc[r][v]);
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < cols; ++j)
      c[r * ldc + j] = load_c ? c[r * ldc + j] + tile[r * NR + j] : tile[r * NR + j];
  }
}
#endif

}  // namespace detail
}  // namespace minigpu::kernels
