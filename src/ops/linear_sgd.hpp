// Minibatch SGD of a Linear(in, 1) layer on a regression dataset held in host memory, with
// the two choices the chapter discusses: where the data lives (copied per batch, or placed on
// the device once) and when the loss reaches the host (every batch, or once at the end).
// Every buffer is allocated in the constructor; train() only launches kernels and copies.
// Data stored in bfloat16 or float16 trains in mixed precision: float parameters (the master
// weights), residuals, gradients and losses (P = accumulator_t<T>), with the weights rounded
// to T where they meet the data in the forward product, and native kernels only.
#pragma once

#include "core/backend.hpp"
#include "core/low_precision.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm.hpp"
#include "kernels/linear.hpp"
#include "ops/linear_layer.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace minigpu {

/// x (samples×in, row-major) and y (samples) in host memory.
template <class T>
struct RegressionData {
  Kokkos::View<T*, Kokkos::HostSpace> x, y;
  std::int64_t samples = 0, in = 0;
};

/// x ~ U[-1, 1), y = x·w + b + U[-noise, noise): deterministic in `seed`. The label is computed
/// in P from x as stored, then stored in T (16-bit labels round to 3 or 4 digits).
template <class T, class P = accumulator_t<T>>
RegressionData<T> make_regression_data(std::int64_t samples, const std::vector<P>& w, P b, P noise,
                                       std::uint64_t seed) {
  const auto in = static_cast<std::int64_t>(w.size());
  RegressionData<T> d{Kokkos::View<T*, Kokkos::HostSpace>("minigpu::linear::x_host", samples * in),
                      Kokkos::View<T*, Kokkos::HostSpace>("minigpu::linear::y_host", samples), samples, in};
  kernels::fill_uniform(d.x, seed, P(-1), P(1));
  kernels::fill_uniform(d.y, seed + 1, -noise, noise);
  Kokkos::fence();
  for (std::int64_t i = 0; i < samples; ++i) {
    P acc = 0;
    for (std::int64_t j = 0; j < in; ++j) acc += P(d.x(i * in + j)) * w[j];
    d.y(i) = T(P(d.y(i)) + (acc + b));
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
template <class T, class P = accumulator_t<T>>
RegressionData<T> chapter_regression_data(std::int64_t samples, std::int64_t in) {
  return make_regression_data<T>(samples, chapter_weights<P>(in), P(kChapterBias), P(0.01), 2024);
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
/// For 16-bit data its forward product rounds the weights to T as the device does, unless
/// `round_forward` is false (float64 throughout from the stored data: what a 16-bit run's error
/// is measured against).
struct SgdReference {
  std::vector<double> w;
  double b = 0;
  std::vector<double> losses;  ///< each batch's loss, in step order
};

template <class T, class P = accumulator_t<T>>
SgdReference reference_sgd(const RegressionData<T>& d, const SgdOptions& o, bool round_forward = true) {
  const std::int64_t in = d.in;
  Kokkos::View<P*, Kokkos::HostSpace> w0("minigpu::linear::w0_host", in);
  kernels::fill_uniform(w0, o.init_seed, P(-0.01), P(0.01));
  Kokkos::fence();
  SgdReference f{std::vector<double>(w0.data(), w0.data() + in), 0.0, {}};
  std::vector<double> gw(static_cast<std::size_t>(in)), forward(gw.size());
  // The weight the forward product sees: the master weight, rounded as the device rounds it.
  const auto as_stored = [round_forward](double v) {
    if constexpr (!std::is_same_v<T, P>) return round_forward ? double(P(T(P(v)))) : v;
    return v;
  };
  for (std::int64_t epoch = 0; epoch < o.epochs; ++epoch) {
    for (std::int64_t start = 0; start < d.samples; start += o.batch_size) {
      const std::int64_t rows = std::min(o.batch_size, d.samples - start);
      const double n = static_cast<double>(rows);
      double loss = 0, gb = 0;
      std::fill(gw.begin(), gw.end(), 0.0);
      for (std::int64_t j = 0; j < in; ++j) forward[j] = as_stored(f.w[j]);
      for (std::int64_t i = 0; i < rows; ++i) {
        const T* x = d.x.data() + (start + i) * in;
        double e = f.b - double(P(d.y(start + i)));
        for (std::int64_t j = 0; j < in; ++j) e += double(P(x[j])) * forward[j];
        loss += e * e / (2.0 * n);
        gb += e / n;
        for (std::int64_t j = 0; j < in; ++j) gw[j] += double(P(x[j])) * e / n;
      }
      for (std::int64_t j = 0; j < in; ++j) f.w[j] -= o.lr * gw[j];
      f.b -= o.lr * gb;
      f.losses.push_back(loss);
    }
  }
  return f;
}

/// Trains `layer` in place; Space is the memory space of the layer's device. T is the data's
/// type, P the parameters', residuals' and losses' (float for 16-bit data, else T).
template <class T, class Space>
class SgdTrainer {
 public:
  using P = accumulator_t<T>;
  using View = Kokkos::View<T*, Space>;
  using ParamView = Kokkos::View<P*, Space>;
  using HostView = Kokkos::View<P*, Kokkos::HostSpace>;

  SgdTrainer(const Linear<P>& layer, const RegressionData<T>& data, const SgdOptions& o)
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
    kernels::fill_uniform(w_, o_.init_seed, P(-0.01), P(0.01));
    Kokkos::deep_copy(b_, P(0));
    const P lr = static_cast<P>(o_.lr);
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
        if (o_.kernel == GemmKernel::native || kMixed) {
          kernels::linear_residual(err_, x, y, w_, b_, rows, in_);
          kernels::mse_gradient(grad_, x, err_, rows, in_);
          kernels::sgd_step(w_, b_, grad_, loss_log_, step, lr, lr, in_);
        } else if constexpr (!kMixed) {
          // err = x·w (rows×in times in×1), then + b − y; grad_w = errᵀ·x (1×rows times rows×in).
          kernels::gemm(GemmKernel::vendor, err_, x, w_, {rows, 1, in_, in_, 1, 1}, false);
          kernels::add_bias_residual(err_, y, b_, rows);
          kernels::gemm(GemmKernel::vendor, grad_, err_, x, {1, in_, rows, rows, in_, in_}, false);
          kernels::mse_gradient(grad_, x, err_, rows, in_, in_);
          kernels::sgd_step(w_, b_, grad_, loss_log_, step, lr, lr / static_cast<P>(rows), in_);
        }
        if (o_.sync_loss) losses_(step) = read_on_host(Kokkos::subview(grad_, in_ + 1));
      }
    }
    if (!o_.sync_loss) Kokkos::deep_copy(losses_, loss_log_);
  }

  std::int64_t steps() const { return steps_; }
  /// Each batch's loss as the host received it (valid after train() and a fence).
  const HostView& losses() const { return losses_; }
  /// The device's own loss log, copied to the host now.
  std::vector<P> device_losses() const {
    std::vector<P> out(static_cast<std::size_t>(steps_));
    Kokkos::deep_copy(Kokkos::View<P*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(out.data(), out.size()),
                      loss_log_);
    return out;
  }

 private:
  using Sub = decltype(Kokkos::subview(View(), std::pair<std::int64_t, std::int64_t>(0, 0)));
  /// 16-bit data: native kernels only (the vendor path multiplies P by P).
  static constexpr bool kMixed = !std::is_same_v<T, P>;

  SgdOptions o_;
  std::int64_t in_, samples_, steps_;
  ParamView w_, b_;
  Kokkos::View<T*, Kokkos::HostSpace> x_host_, y_host_;
  View x_, y_;  ///< the whole dataset (on_device) or one batch (per_batch_copy)
  ParamView err_, grad_, loss_log_;
  HostView losses_;
};

}  // namespace minigpu
