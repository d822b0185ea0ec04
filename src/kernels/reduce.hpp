// Reductions whose result stays in the memory space of the input (no host sync).
#pragma once

#include "core/kokkos_compat.hpp"
#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

namespace minigpu::kernels {

/// *result = sum of in(i); result points into memory of the same space as `in`.
template <class InView>
void sum_into(const InView& in, typename InView::non_const_value_type* result) {
  using T = typename InView::non_const_value_type;
  Kokkos::View<T, typename InView::memory_space, Kokkos::MemoryUnmanaged> out(result);
  Kokkos::parallel_reduce(
      "minigpu::sum", RangeOf<InView>(0, in.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i, T& acc) { acc += in(i); }, out);
}

/// *result = sqrt(sum of in(i)^2), computed and stored on the device of `in`.
template <class InView>
void frobenius_norm_into(const InView& in, typename InView::non_const_value_type* result) {
  using T = typename InView::non_const_value_type;
  Kokkos::View<T, typename InView::memory_space, Kokkos::MemoryUnmanaged> out(result);
  Kokkos::parallel_reduce(
      "minigpu::sum_squares", RangeOf<InView>(0, in.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i, T& acc) { acc += in(i)*in(i); }, out);
  Kokkos::parallel_for(
      "minigpu::sqrt", RangeOf<InView>(0, 1),
      KOKKOS_LAMBDA(const std::int64_t) { out() = kmath::sqrt(out()); });
}

}  // namespace minigpu::kernels
