// Tensor arithmetic: each op runs as a Kokkos kernel on its operands' device and returns
// a tensor on that device. Operands on different devices throw DeviceMismatchError.
#pragma once

#include "core/tensor.hpp"

namespace minigpu {

/// Keeps a scalar parameter out of template deduction, so `x + 1.0` works for float x.
template <class T>
struct scalar_of {
  using type = T;
};
template <class T>
using scalar_t = typename scalar_of<T>::type;

/// Elementwise with numpy broadcasting over rank <= 2 (a 1×3 row adds to each row of a 2×3).
template <class T>
Tensor<T> operator+(const Tensor<T>& a, const Tensor<T>& b);
template <class T>
Tensor<T> operator-(const Tensor<T>& a, const Tensor<T>& b);
template <class T>
Tensor<T> operator*(const Tensor<T>& a, const Tensor<T>& b);
template <class T>
Tensor<T> operator/(const Tensor<T>& a, const Tensor<T>& b);
template <class T>
Tensor<T> pow(const Tensor<T>& a, const Tensor<T>& b);

template <class T>
Tensor<T> operator+(const Tensor<T>& a, scalar_t<T> s);
template <class T>
Tensor<T> operator-(const Tensor<T>& a, scalar_t<T> s);
template <class T>
Tensor<T> operator*(const Tensor<T>& a, scalar_t<T> s);
template <class T>
Tensor<T> operator/(const Tensor<T>& a, scalar_t<T> s);
template <class T>
Tensor<T> operator+(scalar_t<T> s, const Tensor<T>& a);
template <class T>
Tensor<T> operator-(scalar_t<T> s, const Tensor<T>& a);
template <class T>
Tensor<T> operator*(scalar_t<T> s, const Tensor<T>& a);
template <class T>
Tensor<T> operator/(scalar_t<T> s, const Tensor<T>& a);
/// a ** s elementwise.
template <class T>
Tensor<T> pow(const Tensor<T>& a, scalar_t<T> s);
template <class T>
Tensor<T> exp(const Tensor<T>& a);

/// Sum of all elements as a rank-0 tensor on a's device (no host sync; .item() syncs).
template <class T>
Tensor<T> sum(const Tensor<T>& a);
/// sqrt(sum of squares) as a rank-0 tensor on a's device.
template <class T>
Tensor<T> frobenius_norm(const Tensor<T>& a);
/// Matrix product of an m×k and a k×n (or length-k, giving length m) tensor: reference kernel.
template <class T>
Tensor<T> matmul(const Tensor<T>& a, const Tensor<T>& b);

/// Shape of broadcasting a with b; throws ShapeError naming both shapes if incompatible.
Shape broadcast_shape(const Shape& a, const Shape& b, const char* op);

}  // namespace minigpu
