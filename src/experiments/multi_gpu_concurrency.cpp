// multi_gpu_concurrency: the chapter's exercise 4. k matrix multiplies C = A·B of n×n,
// done one after another on one GPU (rank 0; the other ranks idle) vs at the same time on
// k GPUs (k = the job's ranks, one multiply each, every rank bound to its own GPU).
//   reference loop: C(i,j) = sum_p A(i,p)·B(p,j), the kernels::matmul_reference kernel
//   accounting: flops = 2·n³ per multiply, k·multiplies_per_gpu multiplies per repetition in
//   both cases (the same total work, so the time ratio is the speedup); bytes = 3·n²·sizeof(T)
//   per multiply (compulsory traffic).
// Speedup = t(sequential)/t(concurrent), efficiency = speedup/k; ideal is k and 100 %.
#include "comm/collectives.hpp"
#include "config/common_keys.hpp"
#include "core/tensor_factory.hpp"
#include "experiments/registry.hpp"
#include "kernels/matmul_reference.hpp"

#include <cmath>

namespace minigpu {

template <class T>
struct ConcurrencyState {
  std::int64_t n = 0;
  Tensor<T> a, b, c;
};

class MultiGpuConcurrencyExperiment : public Experiment {
 public:
  void configure(ConfigNode& node, const RunContext& ctx) override {
    ctx_ = ctx;
    n_ = node.get_int("n", 256, 1, 100000);
    per_gpu_ = node.get_int("multiplies_per_gpu", 1, 1, 10000);
    dtypes_ = read_dtypes(node, ctx.default_dtype);
  }

  std::vector<CaseSpec> cases() const override {
    std::vector<CaseSpec> out;
    for (DType dtype : dtypes_) {
      for (const char* mode : {"sequential", "concurrent"}) {
        CaseSpec c;
        c.label = std::string(mode) + " k=" + std::to_string(ctx_.ranks) + " n=" + std::to_string(n_);
        c.params = {{"mode", mode},
                    {"k", std::to_string(ctx_.ranks)},
                    {"n", std::to_string(n_)},
                    {"multiplies_per_gpu", std::to_string(per_gpu_)}};
        c.device = try_gpu();
        c.dtype = dtype;
        c.device_bytes = 3 * static_cast<std::uint64_t>(n_ * n_) * (dtype == DType::f32 ? 4 : 8);
        out.push_back(c);
      }
    }
    return out;
  }

  void setup(const CaseSpec& spec) override {
    sequential_ = spec.param("mode") == "sequential";
    dtype_ = spec.dtype;
    multiplies_ = sequential_ ? (ctx_.rank == 0 ? per_gpu_ * ctx_.ranks : 0) : per_gpu_;
    if (dtype_ == DType::f32)
      init(f32_, spec.device);
    else
      init(f64_, spec.device);
  }

  template <class T>
  void init(ConcurrencyState<T>& s, Device device) {
    s.n = n_;
    // Every rank multiplies the same matrices, so any rank's C can be checked the same way.
    s.a = rand<T>({n_, n_}, device, 1, T(-1), T(1));
    s.b = rand<T>({n_, n_}, device, 2, T(-1), T(1));
    s.c = zeros<T>({n_, n_}, device);
  }

  void run_once() override {
    if (dtype_ == DType::f32)
      launch(f32_);
    else
      launch(f64_);
  }

  template <class T>
  void launch(ConcurrencyState<T>& s) {
    const std::int64_t n = s.n;
    for (std::int64_t i = 0; i < multiplies_; ++i) {
      with_views(
          s.c.device(),
          [&](const auto& c, const auto& a, const auto& b) { kernels::matmul_reference(c, a, b, n, n, n); },
          s.c, s.a, s.b);
    }
  }

  Check verify() override { return dtype_ == DType::f32 ? check(f32_) : check(f64_); }

  // Sampled rows of C against a host inner product in double: an independent reference.
  template <class T>
  Check check(const ConcurrencyState<T>& s) {
    if (multiplies_ == 0) return {true, "idle rank"};
    const auto a = s.a.to_vector(), b = s.b.to_vector(), c = s.c.to_vector();
    const std::int64_t n = s.n;
    const double tol = (std::is_same_v<T, float> ? 1e-5 : 1e-12) * std::sqrt(double(n)) * 10;
    double worst = 0;
    for (std::int64_t i = 0; i < n; i += std::max<std::int64_t>(1, n / 8)) {
      for (std::int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (std::int64_t p = 0; p < n; ++p) want += double(a[i * n + p]) * double(b[p * n + j]);
        worst = std::max(worst, std::abs(double(c[i * n + j]) - want) / (1 + std::abs(want)));
      }
    }
    return {worst <= tol, "max rel err " + std::to_string(worst) + " (tol " + std::to_string(tol) + ")"};
  }

  Work work() const override {
    const double multiplies = double(per_gpu_) * ctx_.ranks;
    const double n = double(n_), size = dtype_ == DType::f32 ? 4 : 8;
    return {multiplies * 3 * n * n * size, multiplies * 2 * n * n * n};
  }

  void teardown() override {
    f32_ = {};
    f64_ = {};
  }

  std::vector<Finding> summarize(const std::vector<CaseResult>& results) const override {
    std::vector<Finding> out;
    for (std::size_t i = 0; i + 1 < results.size(); i += 2) {
      const double speedup = results[i].seconds.median / results[i + 1].seconds.median;
      const std::string dt = to_string(results[i].spec.dtype);
      const std::string k = std::to_string(ctx_.ranks);
      out.push_back({"", "speedup_" + dt, speedup, "x", "k=" + k + " GPUs vs one GPU; ideal " + k});
      out.push_back({"", "efficiency_" + dt, 100.0 * speedup / ctx_.ranks, "%", "speedup/k; ideal 100 %"});
    }
    return out;
  }

 private:
  RunContext ctx_;
  std::int64_t n_ = 256, per_gpu_ = 1, multiplies_ = 0;
  std::vector<DType> dtypes_;
  DType dtype_ = DType::f32;
  bool sequential_ = false;
  ConcurrencyState<float> f32_;
  ConcurrencyState<double> f64_;
};

MINIGPU_REGISTER_EXPERIMENT(
    MultiGpuConcurrencyExperiment, "multi_gpu_concurrency",
    "Exercise 4: k matmuls one after another on one GPU vs at once on k GPUs (k ranks)");

}  // namespace minigpu
