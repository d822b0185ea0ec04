// Creating tensors on a chosen device: zeros, ones, full, rand, arange, linspace, from_vector.
#pragma once

#include "core/tensor.hpp"

#include <cstdint>
#include <vector>

namespace minigpu {

template <class T>
Tensor<T> zeros(const Shape& shape, Device device = cpu());
template <class T>
Tensor<T> ones(const Shape& shape, Device device = cpu());
template <class T>
Tensor<T> full(const Shape& shape, T value, Device device = cpu());
/// Uniform in [low, high) from a counter-based generator: the same seed gives the same
/// values on every device (bitwise for [0, 1)).
template <class T>
Tensor<T> rand(const Shape& shape, Device device = cpu(), std::uint64_t seed = 0, T low = 0, T high = 1);
/// start, start+step, ... while < stop (> stop for a negative step), as numpy.arange.
template <class T>
Tensor<T> arange(T start, T stop, T step = 1, Device device = cpu());
/// n evenly spaced values from start to stop inclusive.
template <class T>
Tensor<T> linspace(T start, T stop, std::int64_t n, Device device = cpu());
/// Copies row-major host values into a new tensor of `shape` on `device`.
template <class T>
Tensor<T> from_vector(const std::vector<T>& values, const Shape& shape, Device device = cpu());

}  // namespace minigpu
