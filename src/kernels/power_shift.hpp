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

/// The whole chain in one pass, (v*v - shift_y)^3 - shift_z: 5 flops, and y never leaves
/// registers, so the pass moves 2 elements per element instead of the unfused chain's 4.
template <class T>
struct SquareCubeChain {
  T shift_y, shift_z;
  KOKKOS_INLINE_FUNCTION T operator()(T v) const {
    const T y = v * v - shift_y;
    return y * y * y - shift_z;
  }
};

}  // namespace minigpu::kernels
