// Linear(in, 1): the chapter's one-output dense layer whose weight (in×1) and bias (1) live
// on one device. The forward pass runs there and leaves its output there; parameters are
// read and written from the host through explicit copies into the same storage.
#pragma once

#include "core/tensor.hpp"
#include "kernels/linear.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace minigpu {

template <class T>
class Linear {
 public:
  Linear() = default;
  /// Zero weight and bias allocated on `device` (which must exist).
  Linear(std::int64_t in_features, Device device)
      : weight_({in_features, 1}, device, "minigpu::linear::weight"),
        bias_({1}, device, "minigpu::linear::bias") {}

  std::int64_t in_features() const { return weight_.rows(); }
  Device device() const { return weight_.device(); }
  const Tensor<T>& weight() const { return weight_; }
  const Tensor<T>& bias() const { return bias_; }

  /// Copies host values into the existing weight storage (in_features values).
  void set_weight(const std::vector<T>& values) {
    if (static_cast<std::int64_t>(values.size()) != in_features()) {
      throw ShapeError("Linear::set_weight: " + std::to_string(values.size()) + " values for " +
                       std::to_string(in_features()) + " weights");
    }
    Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> src(values.data(), values.size());
    with_views(
        device(), [&](const auto& dst) { Kokkos::deep_copy(dst, src); }, weight_);
  }
  void set_bias(T value) {
    with_views(
        device(), [&](const auto& dst) { Kokkos::deep_copy(dst, value); }, bias_);
  }
  /// Device → host copies of the parameters.
  std::vector<T> weight_values() const { return weight_.to_vector(); }
  T bias_value() const { return bias_.item(); }

  /// out = x·weight + bias for x of shape rows×in_features; out (rows×1 or rows) is written
  /// in place. Throws DeviceMismatchError unless x, out and the parameters share a device.
  void forward_into(const Tensor<T>& x, const Tensor<T>& out) const {
    const Device d = common_device(x, out, weight_, bias_);
    if (x.rank() != 2 || x.cols() != in_features() || out.numel() != x.rows()) {
      throw ShapeError("Linear::forward: input " + to_string(x.shape()) + " and output " +
                       to_string(out.shape()) + " do not fit a layer of " + std::to_string(in_features()) +
                       " inputs");
    }
    const std::int64_t rows = x.rows(), in = in_features();
    with_views(
        d,
        [&](const auto& o, const auto& xv, const auto& w, const auto& b) {
          kernels::linear_forward(o, xv, w, b, rows, in);
        },
        out, x, weight_, bias_);
  }
  /// Allocates the rows×1 output on the layer's device, then forward_into.
  Tensor<T> forward(const Tensor<T>& x) const {
    common_device(x, weight_);
    Tensor<T> out({x.rank() == 2 ? x.rows() : 1, 1}, device(), "minigpu::linear::output");
    forward_into(x, out);
    return out;
  }

 private:
  Tensor<T> weight_;
  Tensor<T> bias_;
};

}  // namespace minigpu
