// Block multiply-accumulate C = A·B or C += A·B over flat row-major Views with row strides:
// the local step of distributed products (a rank's rows, or one SUMMA panel pair).
// flops = 2·m·n·k. Two loop orders, picked by where the Views' execution space runs:
//   host  MR×NR tiles of C kept in vector registers while a KB-long stretch of k streams
//         by; every B element loaded feeds MR rows
//   GPU   kernels/gemm_gpu.hpp: shared-memory blocks, a register tile of C per thread
#pragma once

#include "core/backend.hpp"
#include "core/gemm_dims.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm_gpu.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace minigpu::kernels {

namespace detail {

// The host tile keeps its accumulators in 16-byte vector registers. GCC's and Clang's vector
// types make that explicit (auto-vectorisation of the same loops came out 3x slower); where
// the backend layer says they are unusable (GPU compilers), the plain loops run instead.
#if defined(MINIGPU_HOST_VECTOR_TYPES)
template <class T>
struct Pack {
  typedef T type __attribute__((vector_size(16)));
};
#endif

// One MR × NV·(16 / sizeof(T)) tile of C, at c, over p in [p0, p1); a and b point at the
// tile's first row of A and first column of B.
template <int MR, int NV, class T>
KOKKOS_INLINE_FUNCTION void gemm_register_tile(T* c, const T* a, const T* b, const GemmDims& d,
                                               std::int64_t p0, std::int64_t p1, bool load_c) {
  constexpr int W = static_cast<int>(16 / sizeof(T));
#if defined(MINIGPU_HOST_VECTOR_TYPES)
  using V = typename Pack<T>::type;
  V acc[MR][NV];
  for (int r = 0; r < MR; ++r) {
    for (int v = 0; v < NV; ++v) {
      if (load_c)
        __builtin_memcpy(&acc[r][v], c + r * d.ldc + v * W, sizeof(V));
      else
        acc[r][v] = V{};
    }
  }
  for (std::int64_t p = p0; p < p1; ++p) {
    V bv[NV];
    for (int v = 0; v < NV; ++v) __builtin_memcpy(&bv[v], b + p * d.ldb + v * W, sizeof(V));
    for (int r = 0; r < MR; ++r) {
      const T ar = a[r * d.lda + p];
      for (int v = 0; v < NV; ++v) acc[r][v] += ar * bv[v];
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int v = 0; v < NV; ++v) __builtin_memcpy(c + r * d.ldc + v * W, &acc[r][v], sizeof(V));
  }
#else
  T acc[MR][NV * W];
  for (int r = 0; r < MR; ++r) {
    for (int q = 0; q < NV * W; ++q) acc[r][q] = load_c ? c[r * d.ldc + q] : T(0);
  }
  for (std::int64_t p = p0; p < p1; ++p) {
    for (int r = 0; r < MR; ++r) {
      const T ar = a[r * d.lda + p];
      for (int q = 0; q < NV * W; ++q) acc[r][q] += ar * b[p * d.ldb + q];
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int q = 0; q < NV * W; ++q) c[r * d.ldc + q] = acc[r][q];
  }
#endif
}

// The ragged rows and columns that do not fill a whole register tile.
template <class T>
KOKKOS_INLINE_FUNCTION void gemm_edge(T* c, const T* a, const T* b, const GemmDims& d, std::int64_t i0,
                                      std::int64_t i1, std::int64_t j0, std::int64_t j1, std::int64_t p0,
                                      std::int64_t p1, bool load_c) {
  for (std::int64_t i = i0; i < i1; ++i) {
    for (std::int64_t j = j0; j < j1; ++j) {
      T acc = load_c ? c[i * d.ldc + j] : T(0);
      for (std::int64_t p = p0; p < p1; ++p) acc += a[i * d.lda + p] * b[p * d.ldb + j];
      c[i * d.ldc + j] = acc;
    }
  }
}

}  // namespace detail

/// Host loop order: parallel over panels of MB rows; within a panel, KB-long stretches of k
/// so the panel's slice of A stays in L2 and each tile-wide slice of B in L1. The Views
/// must have unit stride (flat or contiguous subviews), as all of this project's do.
template <class CView, class AView, class BView>
void gemm_block_host(const CView& c, const AView& a, const BView& b, GemmDims d, bool accumulate) {
  using T = typename CView::non_const_value_type;
  constexpr int MR = 4, NV = 2;
  constexpr std::int64_t NR = NV * static_cast<std::int64_t>(16 / sizeof(T));
  constexpr std::int64_t MB = 64, KB = 256;
  T* const cp = c.data();
  const T* const ap = a.data();
  const T* const bp = b.data();
  const std::int64_t panels = (d.m + MB - 1) / MB;
  Kokkos::parallel_for(
      "minigpu::gemm_block_host", RangeOf<CView>(0, panels), KOKKOS_LAMBDA(const std::int64_t panel) {
        const std::int64_t i_begin = panel * MB, i_end = i_begin + MB < d.m ? i_begin + MB : d.m;
        const std::int64_t i_full = i_begin + (i_end - i_begin) / MR * MR, j_full = d.n / NR * NR;
        if (d.k == 0 && !accumulate) detail::gemm_edge(cp, ap, bp, d, i_begin, i_end, 0, d.n, 0, 0, false);
        for (std::int64_t p0 = 0; p0 < d.k; p0 += KB) {
          const std::int64_t p1 = p0 + KB < d.k ? p0 + KB : d.k;
          const bool load_c = accumulate || p0 > 0;
          for (std::int64_t j0 = 0; j0 < j_full; j0 += NR) {
            for (std::int64_t i0 = i_begin; i0 < i_full; i0 += MR) {
              detail::gemm_register_tile<MR, NV>(cp + i0 * d.ldc + j0, ap + i0 * d.lda, bp + j0, d, p0, p1,
                                                 load_c);
            }
            detail::gemm_edge(cp, ap, bp, d, i_full, i_end, j0, j0 + NR, p0, p1, load_c);
          }
          detail::gemm_edge(cp, ap, bp, d, i_begin, i_end, j_full, d.n, p0, p1, load_c);
        }
      });
}

/// C = A·B (or C += A·B when `accumulate`) in the loop order suited to C's execution space.
template <class CView, class AView, class BView>
void gemm_block(const CView& c, const AView& a, const BView& b, GemmDims d, bool accumulate) {
  if constexpr (Kokkos::SpaceAccessibility<typename CView::execution_space, Kokkos::HostSpace>::accessible) {
    gemm_block_host(c, a, b, d, accumulate);
  } else {
    gemm_gpu(c, a, b, d, accumulate);
  }
}

/// out(r·cols + q) = in(r·in_ld + q): a rows×cols sub-block made contiguous for sending.
template <class OutView, class InView>
void pack_block(const OutView& out, const InView& in, std::int64_t rows, std::int64_t cols,
                std::int64_t in_ld) {
  Kokkos::parallel_for(
      "minigpu::pack_block", RangeOf<OutView>(0, rows * cols),
      KOKKOS_LAMBDA(const std::int64_t e) { out(e) = in((e / cols) * in_ld + e % cols); });
}

}  // namespace minigpu::kernels
