// The matrix multiply every experiment runs, chosen by GemmKernel: the vendor BLAS (what a
// user would call: the default) or miniGPU's native kernel for the Views' execution space.
#pragma once

#include "core/gemm_dims.hpp"
#include "kernels/gemm_block.hpp"
#include "kernels/matmul_vendor.hpp"

#include <type_traits>

namespace minigpu::kernels {

/// C = A·B, or C += A·B when `accumulate`, for row-major flat Views (see GemmDims). Only the
/// native host kernel calls `between_blocks` (gemm_host): a vendor BLAS has no such hook.
template <class CView, class AView, class BView>
void gemm(GemmKernel kernel, const CView& c, const AView& a, const BView& b, const GemmDims& d,
          bool accumulate, const BetweenBlocks* between_blocks = nullptr) {
  if (kernel == GemmKernel::vendor) {
    gemm_vendor(c, a, b, d, accumulate);
  } else {
    gemm_native(c, a, b, d, accumulate, nullptr, between_blocks);
  }
}

/// C = α·A·B with α the value of a rank-0 View in C's memory, written by an earlier kernel: the
/// product is scaled without the host waiting for α (each kernel reads it when it runs).
template <class CView, class AView, class BView, class AlphaView>
void gemm_scaled(GemmKernel kernel, const CView& c, const AView& a, const BView& b, const GemmDims& d,
                 const AlphaView& alpha) {
  static_assert(
      AlphaView::rank == 0 && std::is_same_v<typename AlphaView::memory_space, typename CView::memory_space>,
      "gemm_scaled: alpha is a rank-0 View in C's memory space");
  if (kernel == GemmKernel::vendor) {
    gemm_vendor_scaled(c, a, b, d, alpha);
  } else {
    gemm_native(c, a, b, d, false, alpha.data());
  }
}

/// C = A·B for contiguous row-major flat Views (A m×k, B k×n, C m×n).
template <class CView, class AView, class BView>
void matmul(GemmKernel kernel, const CView& c, const AView& a, const BView& b, std::int64_t m, std::int64_t n,
            std::int64_t k) {
  gemm(kernel, c, a, b, dense_gemm(m, n, k), false);
}

}  // namespace minigpu::kernels
