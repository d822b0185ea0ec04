// Minibatch SGD of a Linear(in, 1) layer on a regression dataset held in host memory, with
// the two choices the chapter discusses: where the data lives (copied per batch, or placed on
// the device once) and when the loss reaches the host (every batch, or once at the end).
// Every buffer is allocated in the constructor; train() only launches kernels and copies.
#pragma once

#include "kernels/elementwise.hpp"
#include "kernels/gemm.hpp"
#include "kernels/linear.hpp"
#include "ops/linear_layer.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace minigpu {

/// x (samples×in, row-major) and y (samples) in host memory.
template <class T>
struct RegressionData {
  Kokkos::View<T*, Kokkos::HostSpace> x, y;
  std::int64_t samples = 0, in = 0;
};

/// x ~ U[-1, 1), y = x·w + b + U[-noise, noise): deterministic in `seed`.
template <class T>
RegressionData<T> make_regression_data(std::int64_t samples, const std::vector<T>& w, T b, T noise,
                                       std::uint64_t seed) {
  const auto in = static_cast<std::int64_t>(w.size());
  RegressionData<T> d{Kokkos::View<T*, Kokkos::HostSpace>("minigpu::linear::x_host", samples * in),
                      Kokkos::View<T*, Kokkos::HostSpace>("minigpu::linear::y_host", samples), samples, in};
  kernels::fill_uniform(d.x, seed, T(-1), T(1));
  kernels::fill_uniform(d.y, seed + 1, -noise, noise);
  Kokkos::fence();
  for (std::int64_t i = 0; i < samples; ++i) {
    T acc = 0;
    for (std::int64_t j = 0; j < in; ++j) acc += d.x(i * in + j) * w[j];
    d.y(i) += acc + b;
  }
  return d;
}

/// The chapter's synthetic data (d2l's synthetic_data), its w* = [2, -3.4] repeated to `in`
/// features and b* = 4.2, with labels U[-0.01, 0.01) off the plane, from a fixed seed.
constexpr double kChapterBias = 4.2;
template <class T>
std::vector<T> chapter_weights(std::int64_t in) {
  std::vector<T> w(static_cast<std::size_t>(in));
  for (std::size_t j = 0; j < w.size(); ++j) w[j] = j % 2 == 0 ? T(2) : T(-3.4);
  return w;
}
template <class T>
RegressionData<T> chapter_regression_data(std::int64_t samples, std::int64_t in) {
  return make_regression_data<T>(samples, chapter_weights<T>(in), T(kChapterBias), T(0.01), 2024);
}

struct SgdOptions {
  std::int64_t batch_size = 64;
  std::int64_t epochs = 1;
  double lr = 0.1;
  bool copy_batches = false;  ///< true: per-batch host→device copies; false: dataset on the device
  bool sync_loss = false;     ///< true: each batch's loss copied to the host; false: once at the end
  /// vendor: x·w and errᵀ·x are BLAS GEMMs; native: fused row and column kernels.
  GemmKernel kernel = GemmKernel::vendor;
  std::uint64_t init_seed = 7;
};

/// Steps of `epochs` passes over `samples` in batches of `batch` (the last one may be short).
inline std::int64_t sgd_steps(std::int64_t samples, std::int64_t batch, std::int64_t epochs) {
  return epochs * ((samples + batch - 1) / batch);
}

/// The same minibatch SGD in double on the host, from the weights SgdTrainer starts from (the
/// same draw of `init_seed`) and a zero bias: the independent reference a device run must match.
struct SgdReference {
  std::vector<double> w;
  double b = 0;
  std::vector<double> losses;  ///< each batch's loss, in step order
};

template <class T>
SgdReference reference_sgd(const RegressionData<T>& d, const SgdOptions& o) {
  const std::int64_t in = d.in;
  Kokkos::View<T*, Kokkos::HostSpace> w0("minigpu::linear::w0_host", in);
  kernels::fill_uniform(w0, o.init_seed, T(-0.01), T(0.01));
  Kokkos::fence();
  SgdReference f{std::vector<double>(w0.data(), w0.data() + in), 0.0, {}};
  std::vector<double> gw(static_cast<std::size_t>(in));
  for (std::int64_t epoch = 0; epoch < o.epochs; ++epoch) {
    for (std::int64_t start = 0; start < d.samples; start += o.batch_size) {
      const std::int64_t rows = std::min(o.batch_size, d.samples - start);
      const double n = static_cast<double>(rows);
      double loss = 0, gb = 0;
      std::fill(gw.begin(), gw.end(), 0.0);
      for (std::int64_t i = 0; i < rows; ++i) {
        const T* x = d.x.data() + (start + i) * in;
        double e = f.b - d.y(start + i);
        for (std::int64_t j = 0; j < in; ++j) e += x[j] * f.w[j];
        loss += e * e / (2.0 * n);
        gb += e / n;
        for (std::int64_t j = 0; j < in; ++j) gw[j] += x[j] * e / n;
      }
      for (std::int64_t j = 0; j < in; ++j) f.w[j] -= o.lr * gw[j];
      f.b -= o.lr * gb;
      f.losses.push_back(loss);
    }
  }
  return f;
}

/// How a trained run compares with reference_sgd from the same data and start.
struct SgdComparison {
  double parameters = 0;  ///< max relative error of w and b, each over max(1, |reference|)
  double losses = 0;      ///< max relative error of the losses, each over |reference| + 1e-4
  bool same_log = true;   ///< the host's losses are the device's own log, bit for bit
  /// The mean loss of the first and of the last epoch (of the halves for one epoch).
  double first_mean = 0, last_mean = 0;
};

/// A run's parameters w and b, the losses the host received (`host_losses`, one per step) and
/// the device's own loss log, against `ref`. The loss floor sits near the noise level of the
/// loss, where relative error stops meaning anything.
template <class T>
SgdComparison compare_with_reference(const std::vector<T>& w, T b, const T* host_losses,
                                     const std::vector<T>& device_log, std::int64_t epochs,
                                     const SgdReference& ref) {
  SgdComparison c;
  c.parameters = std::abs(double(b) - ref.b) / std::max(1.0, std::abs(ref.b));
  for (std::size_t j = 0; j < w.size(); ++j)
    c.parameters =
        std::max(c.parameters, std::abs(double(w[j]) - ref.w[j]) / std::max(1.0, std::abs(ref.w[j])));
  const auto steps = static_cast<std::int64_t>(device_log.size());
  for (std::int64_t i = 0; i < steps; ++i) {
    c.same_log = c.same_log && host_losses[i] == device_log[i];
    c.losses =
        std::max(c.losses, std::abs(host_losses[i] - ref.losses[i]) / (std::abs(ref.losses[i]) + 1e-4));
  }
  const std::int64_t window = epochs > 1 ? steps / epochs : std::max<std::int64_t>(1, steps / 2);
  for (std::int64_t i = 0; i < window; ++i) {
    c.first_mean += host_losses[i] / double(window);
    c.last_mean += host_losses[steps - window + i] / double(window);
  }
  return c;
}

/// Trains `layer` in place; Space is the memory space of the layer's device.
template <class T, class Space>
class SgdTrainer {
 public:
  using View = Kokkos::View<T*, Space>;
  using HostView = Kokkos::View<T*, Kokkos::HostSpace>;

  SgdTrainer(const Linear<T>& layer, const RegressionData<T>& data, const SgdOptions& o)
      : o_(o),
        in_(data.in),
        samples_(data.samples),
        steps_(sgd_steps(data.samples, o.batch_size, o.epochs)),
        w_(layer.weight().template view<Space>()),
        b_(layer.bias().template view<Space>()),
        x_host_(data.x),
        y_host_(data.y),
        err_("minigpu::linear::err", o.batch_size),
        grad_("minigpu::linear::grad", in_ + 2),
        loss_log_("minigpu::linear::loss_log", steps_),
        losses_("minigpu::linear::losses_host", steps_) {
    if (o.copy_batches) {
      x_ = View("minigpu::linear::x_batch", o.batch_size * in_);
      y_ = View("minigpu::linear::y_batch", o.batch_size);
    } else {
      x_ = View("minigpu::linear::x_device", samples_ * in_);
      y_ = View("minigpu::linear::y_device", samples_);
      Kokkos::deep_copy(x_, x_host_);
      Kokkos::deep_copy(y_, y_host_);
    }
  }

  /// Re-initialises the parameters (small uniform weights, zero bias), then runs every epoch.
  void train() {
    using Range = std::pair<std::int64_t, std::int64_t>;
    kernels::fill_uniform(w_, o_.init_seed, T(-0.01), T(0.01));
    Kokkos::deep_copy(b_, T(0));
    const T lr = static_cast<T>(o_.lr);
    std::int64_t step = 0;
    for (std::int64_t epoch = 0; epoch < o_.epochs; ++epoch) {
      for (std::int64_t start = 0; start < samples_; start += o_.batch_size, ++step) {
        const std::int64_t rows = std::min(o_.batch_size, samples_ - start);
        const Range xr(start * in_, (start + rows) * in_), yr(start, start + rows);
        Sub x = o_.copy_batches ? Kokkos::subview(x_, Range(0, rows * in_)) : Kokkos::subview(x_, xr);
        Sub y = o_.copy_batches ? Kokkos::subview(y_, Range(0, rows)) : Kokkos::subview(y_, yr);
        if (o_.copy_batches) {
          Kokkos::deep_copy(x, Kokkos::subview(x_host_, xr));
          Kokkos::deep_copy(y, Kokkos::subview(y_host_, yr));
        }
        if (o_.kernel == GemmKernel::native) {
          kernels::linear_residual(err_, x, y, w_, b_, rows, in_);
          kernels::mse_gradient(grad_, x, err_, rows, in_);
          kernels::sgd_step(w_, b_, grad_, loss_log_, step, lr, lr, in_);
        } else {
          // err = x·w (rows×in times in×1), then + b − y; grad_w = errᵀ·x (1×rows times rows×in).
          kernels::gemm(GemmKernel::vendor, err_, x, w_, {rows, 1, in_, in_, 1, 1}, false);
          kernels::add_bias_residual(err_, y, b_, rows);
          kernels::gemm(GemmKernel::vendor, grad_, err_, x, {1, in_, rows, rows, in_, in_}, false);
          kernels::mse_gradient(grad_, x, err_, rows, in_, in_);
          kernels::sgd_step(w_, b_, grad_, loss_log_, step, lr, lr / static_cast<T>(rows), in_);
        }
        if (o_.sync_loss) Kokkos::deep_copy(Kokkos::subview(losses_, step), Kokkos::subview(grad_, in_ + 1));
      }
    }
    if (!o_.sync_loss) Kokkos::deep_copy(losses_, loss_log_);
  }

  std::int64_t steps() const { return steps_; }
  /// Each batch's loss as the host received it (valid after train() and a fence).
  const HostView& losses() const { return losses_; }
  /// The device's own loss log, copied to the host now.
  std::vector<T> device_losses() const {
    std::vector<T> out(static_cast<std::size_t>(steps_));
    Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(out.data(), out.size()),
                      loss_log_);
    return out;
  }

 private:
  using Sub = decltype(Kokkos::subview(View(), std::pair<std::int64_t, std::int64_t>(0, 0)));

  SgdOptions o_;
  std::int64_t in_, samples_, steps_;
  View w_, b_;
  HostView x_host_, y_host_;
  View x_, y_;  ///< the whole dataset (on_device) or one batch (per_batch_copy)
  View err_, grad_, loss_log_;
  HostView losses_;
};

}  // namespace minigpu
