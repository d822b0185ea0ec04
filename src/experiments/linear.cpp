// linear: the chapter's "Neural Networks and GPUs" section and exercise 2. A Linear(in, 1)
// layer lives on the chosen device; it is trained by minibatch SGD on the chapter's synthetic
// data (ops/linear_sgd.hpp)
//   X ~ U[-1, 1)^(samples×in),  y = X·w* + b* + U[-0.01, 0.01),  w* = [2, -3.4, 2, ...], b* = 4.2
// with L = Σ (x·w + b − y)² / (2B), grad_w = Xᵀ·err / B, grad_b = mean(err) (kernels/linear.hpp).
// `kernel`: vendor computes X·w and errᵀ·X with BLAS GEMMs, native with fused row and column
// kernels of its own; auto (default) the one measured faster at the products' size class.
// Cases per dtype:
//   rule parameters   run_once: out = net(X) on one batch; verify: weight, bias and output live
//                     on the device, host writes of the parameters read back exactly, out = host X·w + b
//   train {data} {loss}   run_once: `epochs` epochs from a fresh initialisation, batches in order
//                     (the last one short when batch_size does not divide samples)
//     data per_batch_copy  the dataset stays in host memory; each batch is copied host → device
//                          (the chapter's prepare_batch); data on_device: copied once in setup,
//                          batches are subviews
//     verify               parameters and loss log match the host's own SGD (double, same data
//                          and start) and are finite; the loss trend and recovering w*, b*
//                          are reported
//     loss sync_each_batch each batch's loss is copied to the host (a sync, like printing it);
//                          loss on_device: losses stay in a device log copied once at the end
// Accounting per repetition (steps = epochs·ceil(samples/B)):
//   flops = epochs·samples·(4·in + 5) + steps·2·(in + 1)  (forward+residual 2·in+2 per row,
//           gradient and loss 2·in+3 per row, update 2 per parameter); parameters: B·(2·in + 1)
//   bytes = host↔device traffic only: per_batch_copy epochs·samples·(in+1)·sizeof(T), plus
//           steps·sizeof(T) of losses in either loss mode (one copy each, or one copy in all)
#include "config/common_keys.hpp"
#include "core/errors.hpp"
#include "engine/case_grid.hpp"
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"
#include "kernels/matmul_vendor.hpp"
#include "ops/linear_sgd.hpp"
#include "ops/tensor_factory.hpp"

#include <cmath>
#include <memory>

namespace minigpu {
namespace {

constexpr double kTolerance = 0.05;  // max |w - w*| and |b - b*| to call them recovered

struct Settings {
  std::int64_t in = 8, samples = 4096;
  SgdOptions sgd;  ///< batch size, epochs, lr; a case sets its kernel, data and loss modes
  Device device;
  std::int64_t steps() const { return sgd_steps(samples, sgd.batch_size, sgd.epochs); }
};

/// Elements a case allocates on its device.
std::uint64_t device_elements(const Settings& s, bool parameters, bool copy) {
  const std::int64_t params = s.in + 1, batch = s.sgd.batch_size;
  if (parameters) return params + batch * s.in + batch;
  const std::int64_t data = copy ? batch * (s.in + 1) : s.samples * (s.in + 1);
  return params + data + batch + (s.in + 2) + s.steps();
}

struct LinearCase {
  bool parameters = false;  ///< the parameter-rule case; else a training case
  bool copy = false;        ///< data copied per batch (else resident on the device)
  bool sync = false;        ///< loss copied to the host per batch (else a device log)
  GemmKernel kernel = GemmKernel::vendor;
};

/// Parameters and outputs live on the chosen device; the host reads and writes parameters.
template <class T>
class ParameterRule : public CaseState {
 public:
  ParameterRule(const Settings& s, const RegressionData<T>& data)
      : s_(s),
        layer_(s.in, s.device),
        w_(chapter_weights<T>(s.in)),
        x_host_(data.x.data(), data.x.data() + s.sgd.batch_size * s.in) {
    layer_.set_weight(w_);
    layer_.set_bias(T(kChapterBias));
    x_ = from_vector<T>(x_host_, {s.sgd.batch_size, s.in}, s.device);
    out_ = Tensor<T>({s.sgd.batch_size, 1}, s.device, "minigpu::linear::output");
  }

  void run() override { layer_.forward_into(x_, out_); }

  Check verify() override {
    const Device d = s_.device;
    const bool placed = layer_.weight().device() == d && layer_.bias().device() == d && out_.device() == d;
    const double err = forward_error(out_.to_vector(), x_host_, w_, kChapterBias);
    const double tol = relative_tolerance<T>();
    // A host write must land in device storage and read back bit for bit.
    const bool round_trip = parameters_round_trip(layer_, w_, T(kChapterBias));
    std::string detail =
        "weight, bias, output on " + (placed ? describe(d) : std::string("DIFFERENT devices"));
    detail += round_trip ? "; host round trip exact" : "; host round trip WRONG";
    return {placed && round_trip && err <= tol, detail + io::formatted("; forward max rel err %.1e", err)};
  }

 private:
  Settings s_;
  Linear<T> layer_;
  std::vector<T> w_, x_host_;
  Tensor<T> x_, out_;
};

template <class T, class Space>
class Training : public CaseState {
 public:
  Training(const Settings& s, const RegressionData<T>& data)
      : s_(s), data_(data), layer_(s.in, s.device), trainer_(layer_, data, s.sgd) {}

  void run() override { trainer_.train(); }

  Check verify() override {
    // The reference is the host's own SGD in double from the same data and initialisation:
    // the device must end where it ends, and the losses the host received must be the
    // device's own log (same math either way). Recovering w* and b* is reported, not
    // required, since a short training (little data, few epochs, small lr) honestly stops
    // short of them.
    const std::vector<T> w = layer_.weight_values(), w_true = chapter_weights<T>(s_.in);
    const T b = layer_.bias_value();
    const SgdComparison c = compare_with_reference(w, b, trainer_.losses().data(), trainer_.device_losses(),
                                                   s_.sgd.epochs, reference_sgd(data_, s_.sgd));
    const double tol = sizeof(T) == 4 ? 1e-3 : 1e-9;
    double w_err = 0;
    for (std::size_t j = 0; j < w.size(); ++j)
      w_err = std::max(w_err, std::abs(double(w[j]) - double(w_true[j])));
    const double b_err = std::abs(double(b) - kChapterBias);
    // NaN compares false: parameters that overflowed (a diverging lr) are no result.
    const bool passed = c.parameters <= tol && c.same_log && c.losses <= tol;
    if (!std::isfinite(c.parameters))
      return {false, "parameters are not finite: training diverged (lower lr)"};
    std::string detail = io::formatted("parameters vs host SGD max rel err %.1e; mean loss %.3g -> %.3g; ",
                                       c.parameters, c.first_mean, c.last_mean);
    detail += io::formatted("loss log vs host SGD max rel err %.1e; ", c.losses);
    const bool recovered = w_err <= kTolerance && b_err <= kTolerance;
    detail += io::formatted(recovered ? "recovered w*, b* (max|w-w*| %.1e, |b-b*| %.1e)"
                                      : "stopped short of w*, b* (max|w-w*| %.1e, |b-b*| %.1e): train longer",
                            w_err, b_err);
    if (s_.sgd.sync_loss || !c.same_log)
      detail += c.same_log ? "; host copies = device log" : "; host copies DIFFER from device log";
    return {passed, detail};
  }

 private:
  Settings s_;
  RegressionData<T> data_;
  Linear<T> layer_;
  SgdTrainer<T, Space> trainer_;
};

std::unique_ptr<CaseState> make_case(const Settings& s, DType dtype, bool parameters) {
  return dispatch(s.device, dtype, [&](auto place) -> std::unique_ptr<CaseState> {
    using T = typename decltype(place)::value_type;
    using Mem = typename decltype(place)::memory_space;
    const auto data = chapter_regression_data<T>(s.samples, s.in);
    if (parameters) return std::make_unique<ParameterRule<T>>(s, data);
    return std::make_unique<Training<T, Mem>>(s, data);
  });
}

class LinearExperiment : public CaseList<LinearCase> {
 public:
  void configure(ConfigNode& node, const RunContext& ctx) override {
    s_.in = node.get_int("in_features", 8, 1, 1000000000);
    s_.samples = node.get_int("samples", 4096, 1, 1000000000);
    s_.sgd.batch_size = node.get_int("batch_size", 64, 1, 1000000000);
    s_.sgd.epochs = node.get_int("epochs", 3, 1, 1000000000);
    if (s_.sgd.batch_size > s_.samples) {
      node.fail("batch_size", "must not exceed samples (" + std::to_string(s_.sgd.batch_size) + " > " +
                                  std::to_string(s_.samples) + ")");
    }
    // Past a few units every input here diverges to inf: a typo, not an experiment.
    constexpr double kMaxLearningRate = 100;
    s_.sgd.lr = node.get_number("lr", 0.2, 0, kMaxLearningRate, /*open_min=*/true);
    const std::vector<DType> dtypes = read_dtypes(node, ctx.default_dtype);
    s_.device = read_device(node);
    const GemmChoice choice = read_gemm_kernel(node, kernels::vendor_gemm_refusal(s_.device, "native"));
    const auto add = [&](DType dtype, LinearCase lc) {
      // The products are batch×in by in×1: auto picks by their size class.
      const GemmPick pick = ctx.pick_gemm(choice, s_.device, dtype, s_.sgd.batch_size, 1, s_.in);
      lc.kernel = pick.kernel;
      const char* data = lc.parameters ? "-" : lc.copy ? "per_batch_copy" : "on_device";
      const char* loss = lc.parameters ? "-" : lc.sync ? "sync_each_batch" : "on_device";
      CaseSpec c = gemm_case_spec(
          lc.parameters ? std::string("parameters")
                        : std::string("train ") + data + " " + loss + " " + to_string(pick.kernel),
          {{"rule", lc.parameters ? "parameters" : "train"},
           {"data", data},
           {"loss", loss},
           {"batch_size", s_.sgd.batch_size},
           {"samples", s_.samples},
           {"in_features", s_.in}},
          pick, s_.device, dtype, "samples");
      c.device_bytes = size_of(dtype) * device_elements(s_, lc.parameters, lc.copy);
      c.work = work_of(lc, static_cast<double>(size_of(dtype)));
      add_case(c, lc);
    };
    // Per dtype: the parameter rules, then training with data {per batch, resident} x loss
    // {synced per batch, logged on the device}.
    for (DType dtype : dtypes) {
      add(dtype, {true, false, false});
      for (bool copy : {true, false}) {
        for (bool sync : {true, false}) add(dtype, {false, copy, sync});
      }
    }
  }

  void setup(const CaseSpec& spec) override {
    const LinearCase& c = case_of(spec);
    Settings s = s_;
    s.sgd.kernel = c.kernel;
    s.sgd.copy_batches = c.copy;
    s.sgd.sync_loss = c.sync;
    state_ = make_case(s, spec.dtype, c.parameters);
  }

  /// One repetition's accounting (the top comment's), T of `size` bytes.
  Work work_of(const LinearCase& c, double size) const {
    const double in = static_cast<double>(s_.in), rows = static_cast<double>(s_.samples);
    if (c.parameters) return {0, static_cast<double>(s_.sgd.batch_size) * (2 * in + 1)};
    const double epochs = static_cast<double>(s_.sgd.epochs), steps = static_cast<double>(s_.steps());
    return {(c.copy ? epochs * rows * (in + 1) * size : 0) + steps * size,
            epochs * rows * (4 * in + 5) + steps * 2 * (in + 1)};
  }

  std::vector<Finding> findings(const std::vector<CaseResult>& results) const override {
    // Each choice's cost with the other held fixed, per dtype.
    std::vector<Finding> out = held_fixed_ratios(
        results, "data", "per_batch_copy", "on_device",
        "per_batch_copy_over_on_device_data.<dtype>.loss_<loss>",
        [](auto&&...) { return "median time, dataset copied per batch vs resident on the device"; });
    for (Finding& f : held_fixed_ratios(
             results, "loss", "sync_each_batch", "on_device",
             "sync_each_batch_over_on_device_loss.<dtype>.data_<data>",
             [](auto&&...) { return "median time, loss copied to the host per batch vs once at the end"; }))
      out.push_back(f);
    return out;
  }

 private:
  Settings s_;
};

}  // namespace

MINIGPU_REGISTER_EXPERIMENT(
    LinearExperiment,
    {"linear",
     "Linear(in,1) on a device: parameter rules, SGD with per-batch copies and loss syncs",
     "exercise 2 and the NN section: parameters on the device",
     "linear_training.png",
     {{"per_batch_copy_over_on_device_data.<dtype>.loss_<loss>", "x",
       "training time with the dataset copied to the device every batch / resident there"},
      {"sync_each_batch_over_on_device_loss.<dtype>.data_<data>", "x",
       "training time with the loss copied to the host every batch / logged on the device"}}});

}  // namespace minigpu
