// Scaling by a scalar that lives on the device, so a normalisation needs no host sync.
#pragma once

#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

namespace minigpu::kernels {

/// out(i) = in(i) / *divisor, where `divisor` points into memory of out's space (e.g. the
/// result of frobenius_norm_into); read on the device, never copied to the host.
template <class OutView, class InView>
void divide_by_device_scalar(const OutView& out, const InView& in,
                             const typename OutView::non_const_value_type* divisor) {
  using T = typename OutView::non_const_value_type;
  Kokkos::View<const T, typename OutView::memory_space, Kokkos::MemoryUnmanaged> d(divisor);
  Kokkos::parallel_for(
      "minigpu::divide_by_device_scalar", RangeOf<OutView>(0, out.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) { out(i) = in(i) / d(); });
}

}  // namespace minigpu::kernels
