// C = A·B for A, B and C stored in a 16-bit type, without 16-bit arithmetic: A and B widened
// to float, the native float kernel (summing in float, as mixed precision does), C rounded
// once. The widening and the rounding move 3·n² elements against the product's 2n³ flops; the
// whole of it is what a native 16-bit product costs on hardware that computes in float.
#pragma once

#include "core/gemm_dims.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace minigpu::kernels {

/// The float copies of one n×n product's operands, made once, and the product through them.
template <class Mem>
class WidenedMatmul {
 public:
  WidenedMatmul() = default;
  explicit WidenedMatmul(std::int64_t n)
      : a_("minigpu::widened::A", n * n),
        b_("minigpu::widened::B", n * n),
        c_("minigpu::widened::C", n * n) {}

  /// c = a·b for n×n row-major Views of a 16-bit storage type in Mem.
  template <class View>
  void operator()(const View& c, const View& a, const View& b, std::int64_t n) const {
    using S = typename View::non_const_value_type;
    map(
        a_, a, KOKKOS_LAMBDA(S x) { return static_cast<float>(x); });
    map(
        b_, b, KOKKOS_LAMBDA(S x) { return static_cast<float>(x); });
    matmul(GemmKernel::native, c_, a_, b_, n, n, n);
    map(
        c, c_, KOKKOS_LAMBDA(float x) { return S(x); });
  }

 private:
  Kokkos::View<float*, Mem> a_, b_, c_;
};

}  // namespace minigpu::kernels
