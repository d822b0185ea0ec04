// The matrix multiply every experiment runs, chosen by GemmKernel: the vendor BLAS (what a
// user would call: the default) or miniGPU's native kernel for the Views' execution space.
#pragma once

#include "core/gemm_dims.hpp"
#include "kernels/gemm_block.hpp"
#include "kernels/matmul_vendor.hpp"

namespace minigpu::kernels {

/// C = A·B, or C += A·B when `accumulate`, for row-major flat Views (see GemmDims).
template <class CView, class AView, class BView>
void gemm(GemmKernel kernel, const CView& c, const AView& a, const BView& b, const GemmDims& d,
          bool accumulate) {
  if (kernel == GemmKernel::vendor) {
    gemm_vendor(c, a, b, d, accumulate);
  } else {
    gemm_native(c, a, b, d, accumulate);
  }
}

/// C = A·B for contiguous row-major flat Views (A m×k, B k×n, C m×n).
template <class CView, class AView, class BView>
void matmul(GemmKernel kernel, const CView& c, const AView& a, const BView& b, std::int64_t m, std::int64_t n,
            std::int64_t k) {
  gemm(kernel, c, a, b, dense_gemm(m, n, k), false);
}

}  // namespace minigpu::kernels
