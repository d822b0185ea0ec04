// Matrix-vector product with its own accumulator type: y = A·x, one thread per row.
// Kept apart from the matmul kernels so it can check them independently.
#pragma once

#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace minigpu::kernels {

/// y(i) = sum_p A(i, p)·x(p) for row-major m×k A; sums in y's value type (e.g. double for a
/// float A, so the check adds almost no rounding of its own).
template <class YView, class AView, class XView>
void matvec(const YView& y, const AView& a, const XView& x, std::int64_t m, std::int64_t k) {
  using Acc = typename YView::non_const_value_type;
  Kokkos::parallel_for(
      "matvec::dense", RangeOf<YView>(0, m), KOKKOS_LAMBDA(const std::int64_t i) {
        Acc acc = 0;
        for (std::int64_t p = 0; p < k; ++p) acc += static_cast<Acc>(a(i * k + p)) * static_cast<Acc>(x(p));
        y(i) = acc;
      });
}

}  // namespace minigpu::kernels
