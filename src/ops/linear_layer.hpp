// Linear(in, 1): the chapter's one-output dense layer whose weight (in×1) and bias (1) live
// on one device. The forward pass runs there and leaves its output there; parameters are
// read and written from the host through explicit copies into the same storage. Beside it, the
// host-side checks of those rules: a host write reads back exactly, the forward pass matches
// the host's own.
#pragma once

#include "core/tensor.hpp"
#include "kernels/linear.hpp"

#include <algorithm>
#include <cmath>
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

/// True when the layer holds `w` and `b`, and host writes of other values land in its storage
/// and read back bit for bit; `w` and `b` are written back, so the layer ends as it began.
template <class T>
bool parameters_round_trip(Linear<T>& layer, const std::vector<T>& w, T b) {
  bool exact = layer.weight_values() == w && layer.bias_value() == b;
  std::vector<T> other(w);
  for (T& v : other) v = -v / T(3);
  layer.set_weight(other);
  layer.set_bias(T(-1) / T(3));
  exact = exact && layer.weight_values() == other && layer.bias_value() == T(-1) / T(3);
  layer.set_weight(w);
  layer.set_bias(b);
  return exact;
}

/// max_i |out_i − y_i| / (1 + |y_i|) with y = x·w + b computed on the host in double, for
/// `out` and row-major x (rows×w.size()) in host memory: the forward pass's relative error.
template <class T>
double forward_error(const std::vector<T>& out, const std::vector<T>& x, const std::vector<T>& w, double b) {
  const std::size_t in = w.size();
  double err = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    double y = b;
    for (std::size_t j = 0; j < in; ++j) y += double(x[i * in + j]) * double(w[j]);
    err = std::max(err, std::abs(out[i] - y) / (1 + std::abs(y)));
  }
  return err;
}

}  // namespace minigpu
