// Matrix-vector product with its own accumulator type: y = A·x, one thread per row.
// Kept apart from the matmul kernels so it can check them independently.
#pragma once

#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace minigpu::kernels {

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// matvec's body: y(i) = sum_p A(i, p)·x(p), summed in y's value type.
template <class YView, class AView, class XView>
struct MatvecBody {
  YView y;
  AView a;
  XView x;
  std::int64_t k;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    using Acc = typename YView::non_const_value_type;
    Acc acc = 0;
    for (std::int64_t p = 0; p < k; ++p) acc += static_cast<Acc>(a(i * k + p)) * static_cast<Acc>(x(p));
    y(i) = acc;
  }
};

/// y(i) = sum_p A(i, p)·x(p) for row-major m×k A; sums in y's value type (e.g. double for a
/// float A, so the check adds almost no rounding of its own).
template <class YView, class AView, class XView>
void matvec(const YView& y, const AView& a, const XView& x, std::int64_t m, std::int64_t k) {
  Kokkos::parallel_for("matvec::dense", RangeOf<YView>(0, m), MatvecBody<YView, AView, XView>{y, a, x, k});
}

}  // namespace minigpu::kernels
