// Tensor creation: allocate on the device, then fill with a kernel in its execution space.
#include "ops/tensor_factory.hpp"

#include "kernels/elementwise.hpp"

#include <cmath>
#include <string>

namespace minigpu {

template <class T>
Tensor<T> zeros(const Shape& shape, Device device) {
  validate_user_shape(shape, "zeros");
  return Tensor<T>(shape, device, "minigpu::zeros");  // Kokkos zero-fills new Views
}

template <class T>
Tensor<T> full(const Shape& shape, T value, Device device) {
  validate_user_shape(shape, "full");
  Tensor<T> out(shape, device, "minigpu::full");
  with_views(
      device, [&](const auto& v) { Kokkos::deep_copy(v, value); }, out);
  return out;
}

template <class T>
Tensor<T> ones(const Shape& shape, Device device) {
  return full<T>(shape, T(1), device);
}

template <class T>
Tensor<T> rand(const Shape& shape, Device device, std::uint64_t seed, T low, T high) {
  validate_user_shape(shape, "rand");
  if (!(low < high)) throw std::invalid_argument("rand: low must be below high");
  Tensor<T> out(shape, device, "minigpu::rand");
  with_views(
      device, [&](const auto& v) { kernels::fill_uniform(v, seed, low, high); }, out);
  return out;
}

template <class T>
Tensor<T> arange(T start, T stop, T step, Device device) {
  if (step == T(0) || !std::isfinite(static_cast<double>(step))) {
    throw std::invalid_argument("arange: step must be finite and non-zero");
  }
  const double count = std::ceil((static_cast<double>(stop) - start) / static_cast<double>(step));
  if (!(count >= 1)) {
    throw ShapeError("arange: [" + std::to_string(start) + ", " + std::to_string(stop) + ") with step " +
                     std::to_string(step) + " is empty");
  }
  Tensor<T> out({static_cast<std::int64_t>(count)}, device, "minigpu::arange");
  with_views(
      device, [&](const auto& v) { kernels::fill_affine(v, start, step, false, T(0)); }, out);
  return out;
}

template <class T>
Tensor<T> linspace(T start, T stop, std::int64_t n, Device device) {
  validate_user_shape({n}, "linspace");
  const T step = n > 1 ? (stop - start) / static_cast<T>(n - 1) : T(0);
  Tensor<T> out({n}, device, "minigpu::linspace");
  with_views(
      device, [&](const auto& v) { kernels::fill_affine(v, start, step, n > 1, stop); }, out);
  return out;
}

template <class T>
Tensor<T> from_vector(const std::vector<T>& values, const Shape& shape, Device device) {
  validate_user_shape(shape, "from_vector");
  if (static_cast<std::int64_t>(values.size()) != numel(shape)) {
    throw ShapeError("from_vector: " + std::to_string(values.size()) + " values do not fill shape " +
                     to_string(shape));
  }
  Tensor<T> out(shape, device, "minigpu::from_vector");
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> src(values.data(), values.size());
  with_views(
      device, [&](const auto& dst) { Kokkos::deep_copy(dst, src); }, out);
  return out;
}

#define MINIGPU_INSTANTIATE_FACTORY(T)                                   \
  template Tensor<T> zeros<T>(const Shape&, Device);                     \
  template Tensor<T> ones<T>(const Shape&, Device);                      \
  template Tensor<T> full<T>(const Shape&, T, Device);                   \
  template Tensor<T> rand<T>(const Shape&, Device, std::uint64_t, T, T); \
  template Tensor<T> arange<T>(T, T, T, Device);                         \
  template Tensor<T> linspace<T>(T, T, std::int64_t, Device);            \
  template Tensor<T> from_vector<T>(const std::vector<T>&, const Shape&, Device);
MINIGPU_INSTANTIATE_FACTORY(float)
MINIGPU_INSTANTIATE_FACTORY(double)

}  // namespace minigpu
