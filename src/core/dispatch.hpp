// The one place where a runtime (device, dtype) becomes a compile-time (memory space,
// scalar type): experiments and tensors call dispatch() or with_dtype() and never branch on
// a dtype or a device kind again.
#pragma once

#include "core/backend.hpp"
#include "core/device.hpp"
#include "core/shape.hpp"

#include <cstddef>
#include <stdexcept>

namespace minigpu {

/// Bytes of one element of `t`.
constexpr std::size_t size_of(DType t) {
  return t == DType::f64 ? sizeof(double) : t == DType::f32 ? sizeof(float) : 2;
}

/// A scalar type as a value, so generic lambdas can receive it.
template <class T>
struct TypeTag {
  using type = T;
};

/// Where data lives and what it is, as types: the argument dispatch() hands its callable.
template <class Mem, class T>
struct Placement {
  using memory_space = Mem;
  using value_type = T;
};

/// f(TypeTag<float>{}) or f(TypeTag<double>{}); both calls must return the same type. The
/// 16-bit types are not dispatched here (every kernel of every experiment would have to take
/// them): an experiment that measures them opts in and dispatches them itself.
template <class F>
decltype(auto) with_dtype(DType t, F&& f) {
  if (is_low_precision(t))
    throw std::logic_error(to_string(t) + " reached with_dtype(): an experiment took it unasked");
  if (t == DType::f32) return f(TypeTag<float>{});
  return f(TypeTag<double>{});
}

/// f(TypeTag<Mem>{}) with Mem the memory space of `device`: host memory for cpu and emulated
/// GPUs, GPU memory for a real one. Both calls must return the same type.
template <class F>
decltype(auto) with_memory_space(Device device, F&& f) {
  if (uses_host_memory(device)) return f(TypeTag<HostMemSpace>{});
  return f(TypeTag<GpuMemSpace>{});
}

/// f(Placement<Mem, T>{}) with Mem the memory space of `device` and T the scalar type of
/// `dtype`.
template <class F>
decltype(auto) dispatch(Device device, DType dtype, F&& f) {
  return with_dtype(dtype, [&](auto type) -> decltype(auto) {
    return with_memory_space(device, [&](auto space) -> decltype(auto) {
      return f(Placement<typename decltype(space)::type, typename decltype(type)::type>{});
    });
  });
}

}  // namespace minigpu
