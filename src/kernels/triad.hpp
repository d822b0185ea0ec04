// STREAM's triad, a(i) = b(i) + s·c(i): the memory-bandwidth reference of the ceilings layer.
// Pure Kokkos: runs in the execution space of the Views it is given.
#pragma once

#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

namespace minigpu::kernels {

template <class View>
void triad(const View& a, const View& b, const View& c, typename View::non_const_value_type s) {
  Kokkos::parallel_for(
      "stream::triad", RangeOf<View>(0, a.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) { a(i) = b(i) + s * c(i); });
}

}  // namespace minigpu::kernels
