// Reductions whose result stays in the memory space of the input (no host sync): the result
// is a rank-0 View of that space, a subview of a device log entry for instance.
#pragma once

#include "core/kokkos_compat.hpp"
#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace minigpu::kernels {

template <class InView, class OutView>
constexpr void require_same_space() {
  static_assert(OutView::rank == 0, "the result of a reduction is a rank-0 View");
  static_assert(std::is_same_v<typename InView::memory_space, typename OutView::memory_space>,
                "the result must live in the memory space of the input");
}

/// out() = sum of in(i).
template <class InView, class OutView>
void sum_into(const InView& in, const OutView& out) {
  require_same_space<InView, OutView>();
  using T = typename InView::non_const_value_type;
  Kokkos::parallel_reduce(
      "reduce::sum", RangeOf<InView>(0, in.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i, T& acc) { acc += in(i); }, out);
}

/// Sum of squares whose final step takes the root (or its reciprocal): the norm in one
/// reduction, one launch.
template <class InView, bool Reciprocal = false>
struct SquaredSumRoot {
  using value_type = typename InView::non_const_value_type;
  InView in;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, value_type& acc) const { acc += in(i)*in(i); }
  KOKKOS_INLINE_FUNCTION void final(value_type& acc) const {
    acc = Reciprocal ? value_type(1) / kmath::sqrt(acc) : kmath::sqrt(acc);
  }
};

/// out() = sqrt(sum of in(i)^2), computed and stored on the device of `in`.
template <class InView, class OutView>
void frobenius_norm_into(const InView& in, const OutView& out) {
  require_same_space<InView, OutView>();
  Kokkos::parallel_reduce("reduce::frobenius_norm", RangeOf<InView>(0, in.extent(0)),
                          SquaredSumRoot<InView>{in}, out);
}

/// out() = 1 / sqrt(sum of in(i)^2): the factor that normalises `in`, in the same single
/// reduction, so a following kernel can scale by it without a division per element.
template <class InView, class OutView>
void inverse_frobenius_norm_into(const InView& in, const OutView& out) {
  require_same_space<InView, OutView>();
  Kokkos::parallel_reduce("reduce::inverse_frobenius_norm", RangeOf<InView>(0, in.extent(0)),
                          SquaredSumRoot<InView, true>{in}, out);
}

}  // namespace minigpu::kernels
