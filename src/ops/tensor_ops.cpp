// Tensor arithmetic on top of the pure kernels: device checks, shapes, then one launch.
#include "ops/tensor_ops.hpp"

#include "kernels/elementwise.hpp"
#include "kernels/matmul_reference.hpp"
#include "kernels/reduce.hpp"

namespace minigpu {
namespace {

// Right-aligned 2-D view of a shape: (rows, cols), rank 1 is one row, rank 0 is 1×1.
std::pair<std::int64_t, std::int64_t> as_matrix(const Shape& s) {
  if (s.empty()) return {1, 1};
  if (s.size() == 1) return {1, s[0]};
  return {s[0], s[1]};
}

template <class T, class Op>
Tensor<T> elementwise(const Tensor<T>& a, const Tensor<T>& b, Op op, const char* name) {
  const Device device = common_device(a, b);
  const Shape shape = broadcast_shape(a.shape(), b.shape(), name);
  const auto [rows, cols] = as_matrix(shape);
  const auto [ar, ac] = as_matrix(a.shape());
  const auto [br, bc] = as_matrix(b.shape());
  kernels::BroadcastStrides s;
  s.cols = cols;
  s.a_row = ar == rows && rows > 1 ? ac : 0;
  s.a_col = ac == cols && cols > 1 ? 1 : 0;
  s.b_row = br == rows && rows > 1 ? bc : 0;
  s.b_col = bc == cols && cols > 1 ? 1 : 0;
  Tensor<T> out(shape, device, name);
  with_views(
      device, [&](const auto& o, const auto& x, const auto& y) { kernels::binary(o, x, y, s, op); }, out, a,
      b);
  return out;
}

template <class T, class F>
Tensor<T> unary(const Tensor<T>& a, F f, const char* name) {
  Tensor<T> out(a.shape(), a.device(), name);
  with_views(
      a.device(), [&](const auto& o, const auto& x) { kernels::map(o, x, f); }, out, a);
  return out;
}

template <class T, class Op>
Tensor<T> right_scalar(const Tensor<T>& a, T s, Op op, const char* name) {
  return unary(a, kernels::WithScalar<Op, T, false>{op, s}, name);
}

template <class T, class Op>
Tensor<T> left_scalar(T s, const Tensor<T>& a, Op op, const char* name) {
  return unary(a, kernels::WithScalar<Op, T, true>{op, s}, name);
}

}  // namespace

Shape broadcast_shape(const Shape& a, const Shape& b, const char* op) {
  Shape out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    // Align from the right, as numpy does; a missing dimension acts as 1.
    const std::int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const std::int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) {
      throw ShapeError(std::string(op) + ": shapes " + to_string(a) + " and " + to_string(b) +
                       " cannot be broadcast together");
    }
    out[out.size() - 1 - i] = std::max(x, y);
  }
  return out;
}

template <class T>
Tensor<T> operator+(const Tensor<T>& a, const Tensor<T>& b) {
  return elementwise(a, b, kernels::Add{}, "add");
}
template <class T>
Tensor<T> operator-(const Tensor<T>& a, const Tensor<T>& b) {
  return elementwise(a, b, kernels::Sub{}, "sub");
}
template <class T>
Tensor<T> operator*(const Tensor<T>& a, const Tensor<T>& b) {
  return elementwise(a, b, kernels::Mul{}, "mul");
}
template <class T>
Tensor<T> operator/(const Tensor<T>& a, const Tensor<T>& b) {
  return elementwise(a, b, kernels::Div{}, "div");
}
template <class T>
Tensor<T> pow(const Tensor<T>& a, const Tensor<T>& b) {
  return elementwise(a, b, kernels::Pow{}, "pow");
}

template <class T>
Tensor<T> operator+(const Tensor<T>& a, scalar_t<T> s) {
  return right_scalar(a, s, kernels::Add{}, "add");
}
template <class T>
Tensor<T> operator-(const Tensor<T>& a, scalar_t<T> s) {
  return right_scalar(a, s, kernels::Sub{}, "sub");
}
template <class T>
Tensor<T> operator*(const Tensor<T>& a, scalar_t<T> s) {
  return right_scalar(a, s, kernels::Mul{}, "mul");
}
template <class T>
Tensor<T> operator/(const Tensor<T>& a, scalar_t<T> s) {
  return right_scalar(a, s, kernels::Div{}, "div");
}
template <class T>
Tensor<T> operator+(scalar_t<T> s, const Tensor<T>& a) {
  return left_scalar(s, a, kernels::Add{}, "add");
}
template <class T>
Tensor<T> operator-(scalar_t<T> s, const Tensor<T>& a) {
  return left_scalar(s, a, kernels::Sub{}, "sub");
}
template <class T>
Tensor<T> operator*(scalar_t<T> s, const Tensor<T>& a) {
  return left_scalar(s, a, kernels::Mul{}, "mul");
}
template <class T>
Tensor<T> operator/(scalar_t<T> s, const Tensor<T>& a) {
  return left_scalar(s, a, kernels::Div{}, "div");
}
template <class T>
Tensor<T> pow(const Tensor<T>& a, scalar_t<T> s) {
  return right_scalar(a, s, kernels::Pow{}, "pow");
}
template <class T>
Tensor<T> exp(const Tensor<T>& a) {
  return unary(a, kernels::Exp{}, "exp");
}

template <class T>
Tensor<T> sum(const Tensor<T>& a) {
  Tensor<T> out(Shape{}, a.device(), "sum");
  with_views(
      a.device(), [&](const auto& o, const auto& x) { kernels::sum_into(x, Kokkos::subview(o, 0)); }, out, a);
  return out;
}

template <class T>
Tensor<T> frobenius_norm(const Tensor<T>& a) {
  Tensor<T> out(Shape{}, a.device(), "frobenius_norm");
  with_views(
      a.device(),
      [&](const auto& o, const auto& x) { kernels::frobenius_norm_into(x, Kokkos::subview(o, 0)); }, out, a);
  return out;
}

template <class T>
Tensor<T> matmul(const Tensor<T>& a, const Tensor<T>& b) {
  const Device device = common_device(a, b);
  if (a.rank() != 2 || b.rank() < 1 || a.shape()[1] != b.shape()[0]) {
    throw ShapeError("matmul: shapes " + to_string(a.shape()) + " and " + to_string(b.shape()) +
                     " are not an m×k matrix and a k×n matrix or length-k vector");
  }
  const std::int64_t m = a.shape()[0], k = a.shape()[1], n = b.rank() == 2 ? b.shape()[1] : 1;
  Tensor<T> out(b.rank() == 2 ? Shape{m, n} : Shape{m}, device, "matmul");
  with_views(
      device,
      [&](const auto& c, const auto& x, const auto& y) { kernels::matmul_reference(c, x, y, m, n, k); }, out,
      a, b);
  return out;
}

#define MINIGPU_INSTANTIATE_OPS(T)                                  \
  template Tensor<T> operator+(const Tensor<T>&, const Tensor<T>&); \
  template Tensor<T> operator-(const Tensor<T>&, const Tensor<T>&); \
  template Tensor<T> operator*(const Tensor<T>&, const Tensor<T>&); \
  template Tensor<T> operator/(const Tensor<T>&, const Tensor<T>&); \
  template Tensor<T> pow(const Tensor<T>&, const Tensor<T>&);       \
  template Tensor<T> operator+(const Tensor<T>&, scalar_t<T>);      \
  template Tensor<T> operator-(const Tensor<T>&, scalar_t<T>);      \
  template Tensor<T> operator*(const Tensor<T>&, scalar_t<T>);      \
  template Tensor<T> operator/(const Tensor<T>&, scalar_t<T>);      \
  template Tensor<T> operator+(scalar_t<T>, const Tensor<T>&);      \
  template Tensor<T> operator-(scalar_t<T>, const Tensor<T>&);      \
  template Tensor<T> operator*(scalar_t<T>, const Tensor<T>&);      \
  template Tensor<T> operator/(scalar_t<T>, const Tensor<T>&);      \
  template Tensor<T> pow(const Tensor<T>&, scalar_t<T>);            \
  template Tensor<T> exp(const Tensor<T>&);                         \
  template Tensor<T> sum(const Tensor<T>&);                         \
  template Tensor<T> frobenius_norm(const Tensor<T>&);              \
  template Tensor<T> matmul(const Tensor<T>&, const Tensor<T>&);
MINIGPU_INSTANTIATE_OPS(float)
MINIGPU_INSTANTIATE_OPS(double)

}  // namespace minigpu
