// The chapter's elementwise chain y = x**2 - 0.5; z = y**3 - 0.2 as map functors.
// Products instead of pow: the same values on every backend, and 5 flops per element in all.
#pragma once

#include <Kokkos_Core.hpp>

namespace minigpu::kernels {

/// v*v - shift: 2 flops.
template <class T>
struct SquareMinus {
  T shift;
  KOKKOS_INLINE_FUNCTION T operator()(T v) const { return v * v - shift; }
};

/// v*v*v - shift: 3 flops.
template <class T>
struct CubeMinus {
  T shift;
  KOKKOS_INLINE_FUNCTION T operator()(T v) const { return v * v * v - shift; }
};

}  // namespace minigpu::kernels
