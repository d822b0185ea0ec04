// Reference matrix multiply: C = A·B, one thread per C(i,j), the inner product in order.
// flops = 2·m·n·k. Correct by construction; fast variants live beside it.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace minigpu::kernels {

/// A is m×k, B is k×n, C is m×n, all row-major in flat Views.
template <class CView, class AView, class BView>
void matmul_reference(const CView& c, const AView& a, const BView& b, std::int64_t m, std::int64_t n,
                      std::int64_t k) {
  using T = typename CView::non_const_value_type;
  using Policy = Kokkos::MDRangePolicy<typename CView::execution_space, Kokkos::Rank<2>,
                                       Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(
      "gemm::reference", Policy({std::int64_t(0), std::int64_t(0)}, {m, n}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        T acc = 0;
        for (std::int64_t p = 0; p < k; ++p) acc += a(i * k + p) * b(p * n + j);
        c(i * n + j) = acc;
      });
}

}  // namespace minigpu::kernels
