// logging: the chapter's exercise 3 — what does logging a value every step cost when the
// value lives on the GPU? `steps` steps of an n×n matmul, normalised so values stay finite:
//   Y = A·X_t;  log[t] = ‖Y‖_F;  X_{t+1} = Y / ‖Y‖_F        (X_0 reset at each repetition)
// sync_each_step copies ‖Y‖_F to the host every step (a host sync, like print() or .item());
// device_log writes it into a device log at index t and copies the log to the host once.
// Both run the same kernels; the difference in time is the cost of the per-step sync.
// Accounting per repetition (s = sizeof(T)):
//   flops = steps·(2n³ + 3n²)   (matmul; squares and sum for the norm; the division)
//   bytes = 2n²·s (reset X) + steps·(6n²+2)·s  (matmul reads A, X, writes Y: 3n²; norm reads
//           Y: n²; division reads Y, writes X: 2n²; the norm stored, then copied to the host)
#include "config/common_keys.hpp"
#include "core/tensor.hpp"
#include "experiments/registry.hpp"
#include "io/format.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/matmul_reference.hpp"
#include "kernels/reduce.hpp"
#include "kernels/scale.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace minigpu {
namespace {

const char* const kSync = "sync_each_step";
const char* const kDeviceLog = "device_log";
// The host recomputes the recurrence for as many steps as fit this many flops.
constexpr double kHostCheckFlops = 4e8;

/// max_t |x_t - y_t| / |y_t| over the first `count` entries; infinity for non-finite values.
double max_rel_diff(const std::vector<double>& x, const std::vector<double>& y, std::size_t count) {
  double worst = 0;
  for (std::size_t t = 0; t < count; ++t) {
    if (!std::isfinite(x[t]) || !std::isfinite(y[t])) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, std::abs(x[t] - y[t]) / std::max(std::abs(y[t]), 1e-300));
  }
  return worst;
}

template <class T>
struct LoggingState {
  Tensor<T> a, x0, x, y, norm, log;
  Kokkos::View<T*, Kokkos::HostSpace> host_log;
  std::int64_t n = 0, steps = 0;

  void setup(Device d, std::int64_t size, std::int64_t step_count) {
    n = size;
    steps = step_count;
    a = Tensor<T>({n, n}, d, "logging::A");
    x0 = Tensor<T>({n, n}, d, "logging::X0");
    x = Tensor<T>({n, n}, d, "logging::X");
    y = Tensor<T>({n, n}, d, "logging::AX");
    norm = Tensor<T>(Shape{}, d, "logging::norm");
    log = Tensor<T>({steps}, d, "logging::device_log");
    host_log = Kokkos::View<T*, Kokkos::HostSpace>("logging::host_log", steps);
    // Positive entries give A a dominant real eigenvalue well above the rest, so the
    // iteration converges and rounding differences between devices die out, not grow.
    with_views(
        d,
        [](const auto& av, const auto& xv) {
          kernels::fill_uniform(av, 11, T(0), T(1));
          kernels::fill_uniform(xv, 12, T(0), T(1));
        },
        a, x0);
  }

  void run(bool sync_each_step) {
    const std::int64_t s = n, count = steps;
    const auto hl = host_log;
    with_views(
        a.device(),
        [&](const auto& av, const auto& x0v, const auto& xv, const auto& yv, const auto& nv, const auto& lv) {
          Kokkos::deep_copy(xv, x0v);
          for (std::int64_t t = 0; t < count; ++t) {
            kernels::matmul_reference(yv, av, xv, s, s, s);
            T* norm_at = sync_each_step ? nv.data() : lv.data() + t;
            kernels::frobenius_norm_into(yv, norm_at);
            // deep_copy to the host waits for the device: the sync the chapter warns about.
            if (sync_each_step) Kokkos::deep_copy(Kokkos::subview(hl, std::make_pair(t, t + 1)), nv);
            kernels::divide_by_device_scalar(xv, yv, norm_at);
          }
          if (!sync_each_step) Kokkos::deep_copy(hl, lv);
        },
        a, x0, x, y, norm, log);
  }

  std::vector<double> logged() const { return std::vector<double>(host_log.data(), host_log.data() + steps); }

  /// The same recurrence on the host in double from the same A and X_0, for `count` steps.
  std::vector<double> host_reference(std::int64_t count) const {
    const auto av = a.to_vector();
    const auto x0v = x0.to_vector();
    std::vector<double> xs(x0v.begin(), x0v.end()), ys(xs.size()), out;
    for (std::int64_t t = 0; t < count; ++t) {
      std::fill(ys.begin(), ys.end(), 0.0);
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t p = 0; p < n; ++p) {
          const double aip = av[i * n + p];
          for (std::int64_t j = 0; j < n; ++j) ys[i * n + j] += aip * xs[p * n + j];
        }
      }
      double sq = 0;
      for (double v : ys) sq += v * v;
      const double nrm = std::sqrt(sq);
      out.push_back(nrm);
      for (std::size_t e = 0; e < xs.size(); ++e) xs[e] = ys[e] / nrm;
    }
    return out;
  }

  void clear() {
    a = x0 = x = y = norm = log = Tensor<T>();
    host_log = {};
  }
};

}  // namespace

class LoggingExperiment : public Experiment {
 public:
  void configure(ConfigNode& node, const RunContext& ctx) override {
    n_ = node.get_int("n", 100, 1, 100000);
    steps_ = node.get_int("steps", 1000, 1, 10000000);
    dtypes_ = read_dtypes(node, ctx.default_dtype);
  }

  std::vector<CaseSpec> cases() const override {
    std::vector<CaseSpec> out;
    for (DType dt : dtypes_) {
      const std::uint64_t elem = dt == DType::f32 ? sizeof(float) : sizeof(double);
      for (const char* mode : {kSync, kDeviceLog}) {
        CaseSpec c;
        c.label = mode;
        c.params = {{"n", std::to_string(n_)}, {"steps", std::to_string(steps_)}, {"mode", mode}};
        c.device = try_gpu();
        c.dtype = dt;
        c.device_bytes =
            (4 * static_cast<std::uint64_t>(n_ * n_) + 1 + static_cast<std::uint64_t>(steps_)) * elem;
        out.push_back(c);
      }
    }
    return out;
  }

  void setup(const CaseSpec& spec) override {
    dtype_ = spec.dtype;
    mode_ = spec.param("mode");
    if (dtype_ == DType::f32)
      f32_.setup(spec.device, n_, steps_);
    else
      f64_.setup(spec.device, n_, steps_);
  }

  void run_once() override {
    if (dtype_ == DType::f32)
      f32_.run(mode_ == kSync);
    else
      f64_.run(mode_ == kSync);
  }

  Check verify() override { return dtype_ == DType::f32 ? check(f32_) : check(f64_); }

  Work work() const override {
    const double n = static_cast<double>(n_), steps = static_cast<double>(steps_);
    const double elem = dtype_ == DType::f32 ? sizeof(float) : sizeof(double);
    return {(2 * n * n + steps * (6 * n * n + 2)) * elem, steps * (2 * n * n * n + 3 * n * n)};
  }

  void teardown() override {
    f32_.clear();
    f64_.clear();
  }

  std::vector<Finding> summarize(const std::vector<CaseResult>& results) const override {
    std::vector<Finding> out;
    for (DType dt : dtypes_) {
      double sync = 0, device_log = 0;
      for (const auto& r : results) {
        if (r.spec.dtype != dt) continue;
        (r.spec.param("mode") == kSync ? sync : device_log) = r.seconds.median;
      }
      if (sync <= 0 || device_log <= 0) continue;
      const double per_step_us = (sync - device_log) / static_cast<double>(steps_) * 1e6;
      const std::string cost = per_step_us > 0
                                   ? "a host sync adds " + io::significant(per_step_us, 2) + " us per step"
                                   : "no measurable cost of a host sync (difference within noise)";
      out.push_back(
          {"", "sync_over_device_log", sync / device_log, "x",
           to_string(dt) + ", n=" + std::to_string(n_) + ", " + std::to_string(steps_) + " steps: " + cost});
    }
    return out;
  }

 private:
  template <class T>
  Check check(const LoggingState<T>& state) {
    const std::vector<double> got = state.logged();
    const auto host_steps = static_cast<std::int64_t>(std::min<double>(
        static_cast<double>(steps_), std::max(8.0, kHostCheckFlops / (2.0 * n_ * n_ * n_ + 3.0 * n_ * n_))));
    auto& reference = references_[dtype_];
    if (static_cast<std::int64_t>(reference.size()) < host_steps)
      reference = state.host_reference(host_steps);
    // The device sums in T, the host in double: rounding of sums of n and n² terms.
    const double eps = std::numeric_limits<T>::epsilon();
    const double host_tol = 32.0 * static_cast<double>(n_) * eps;
    const double host_err = max_rel_diff(got, reference, static_cast<std::size_t>(host_steps));
    bool ok = host_err <= host_tol;
    std::string detail = "first " + std::to_string(host_steps) +
                         " steps vs host: " + io::significant(host_err, 2) + (ok ? " <= " : " > ") +
                         io::significant(host_tol, 2);
    // The other mode ran the same kernels in the same order, so the logs should agree to rounding.
    const auto other = logs_.find(dtype_);
    if (other != logs_.end() && other->second.first != mode_) {
      const double cross_tol = 16.0 * eps;
      const double cross = max_rel_diff(got, other->second.second, got.size());
      ok = ok && cross <= cross_tol;
      detail += "; all steps vs " + other->second.first + ": " + io::significant(cross, 2) +
                (cross <= cross_tol ? " <= " : " > ") + io::significant(cross_tol, 2);
    }
    logs_[dtype_] = {mode_, got};
    return {ok, detail};
  }

  std::int64_t n_ = 100, steps_ = 1000;
  std::vector<DType> dtypes_;
  DType dtype_ = DType::f32;
  std::string mode_;
  LoggingState<float> f32_;
  LoggingState<double> f64_;
  std::map<DType, std::vector<double>> references_;
  std::map<DType, std::pair<std::string, std::vector<double>>> logs_;
};

MINIGPU_REGISTER_EXPERIMENT(LoggingExperiment, "logging",
                            "Logging a device value each step: host sync per step vs a device-side log");

}  // namespace minigpu
