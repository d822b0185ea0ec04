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
// dtypes bfloat16 and float16 train in mixed precision: X and y stored in 16 bits, the weights
// rounded to 16 bits where they meet X in the forward product, and float master weights,
// residuals, gradients and losses; native kernels only. They list the training cases (their
// float parameters obey the rules float32's case checks), and verify against the host's SGD,
// which rounds its forward weights the same way.
// Accounting per repetition (steps = epochs·ceil(samples/B)):
//   flops = epochs·samples·(4·in + 5) + steps·2·(in + 1)  (forward+residual 2·in+2 per row,
//           gradient and loss 2·in+3 per row, update 2 per parameter); parameters: B·(2·in + 1)
//   bytes = host↔device traffic only: per_batch_copy epochs·samples·(in+1)·sizeof(T), plus
//           steps·sizeof(loss) of losses in either loss mode (one copy each, or one copy in
//           all); a loss is float for 16-bit data
#include "config/common_keys.hpp"
#include "core/errors.hpp"
#include "engine/case_grid.hpp"
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"
#include "kernels/matmul_vendor.hpp"
#include "ops/linear_check.hpp"
#include "ops/linear_sgd.hpp"
#include "ops/tensor_factory.hpp"

#include <memory>

namespace minigpu {
namespace {

struct Settings {
  std::int64_t in = 8, samples = 4096;
  SgdOptions sgd;  ///< batch size, epochs, lr; a case sets its kernel, data and loss modes
  Device device;
  std::int64_t steps() const { return sgd_steps(samples, sgd.batch_size, sgd.epochs); }
};

/// Bytes a case allocates on its device: data of `data_size` bytes an entry, the rest
/// (parameters, residuals, gradient, loss log) of `size` bytes.
std::uint64_t device_bytes(const Settings& s, bool parameters, bool copy, std::uint64_t data_size,
                           std::uint64_t size) {
  const std::int64_t params = s.in + 1, batch = s.sgd.batch_size,
                     data = (copy ? batch : s.samples) * (s.in + 1);
  if (parameters) return size * static_cast<std::uint64_t>(params + batch * s.in + batch);
  return data_size * static_cast<std::uint64_t>(data) +
         size * static_cast<std::uint64_t>(params + batch + (s.in + 2) + s.steps());
}

struct LinearCase {
  bool parameters = false;  ///< the parameter-rule case; else a training case
  bool copy = false;        ///< data copied per batch (else resident on the device)
  bool sync = false;        ///< loss copied to the host per batch (else a device log)
  GemmKernel kernel = GemmKernel::vendor;
};

/// The settings a case runs with: the experiment's, with the case's kernel, data and loss modes.
Settings settings_of(Settings s, const LinearCase& c) {
  s.sgd.kernel = c.kernel;
  s.sgd.copy_batches = c.copy;
  s.sgd.sync_loss = c.sync;
  return s;
}

template <class T>
std::vector<T> first_batch(const RegressionData<T>& data, const Settings& s) {
  return {data.x.data(), data.x.data() + s.sgd.batch_size * s.in};
}

/// Parameters and outputs live on the chosen device; the host reads and writes parameters.
template <class Mem, class T>
class ParameterRule : public CaseState {
 public:
  ParameterRule(const LinearCase& c, const Settings& settings)
      : s_(settings_of(settings, c)),
        layer_(s_.in, s_.device),
        w_(chapter_weights<T>(s_.in)),
        x_host_(first_batch(chapter_regression_data<T>(s_.samples, s_.in), s_)) {
    layer_.set_weight(w_);
    layer_.set_bias(T(kChapterBias));
    x_ = from_vector<T>(x_host_, {s_.sgd.batch_size, s_.in}, s_.device);
    out_ = Tensor<T>({s_.sgd.batch_size, 1}, s_.device, "minigpu::linear::output");
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

/// Training on data of type T in Space: parameters, residuals and losses in P (float for 16-bit
/// data).
template <class Space, class T>
class Training : public CaseState {
 public:
  using P = accumulator_t<T>;
  Training(const LinearCase& c, const Settings& settings)
      : s_(settings_of(settings, c)),
        data_(chapter_regression_data<T>(s_.samples, s_.in)),
        layer_(s_.in, s_.device),
        trainer_(layer_, data_, s_.sgd) {}

  void run() override { trainer_.train(); }

  Check verify() override {
    const SgdVerdict v = judge_training<T>(layer_.weight_values(), layer_.bias_value(),
                                           trainer_.losses().data(), trainer_.device_losses(), s_.sgd, data_);
    return {v.passed, v.detail, v.error};
  }

 private:
  Settings s_;
  RegressionData<T> data_;
  Linear<P> layer_;
  SgdTrainer<T, Space> trainer_;
};

class LinearExperiment : public CaseList<LinearCase>, public Analysis {
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
    const std::vector<DType> dtypes = read_dtypes(node, ctx.default_dtype, "dtypes", Precisions::low_too);
    s_.device = read_device(node);
    const GemmChoice choice = read_gemm_kernel(node, kernels::vendor_gemm_refusal(s_.device, "native"));
    const bool low = std::any_of(dtypes.begin(), dtypes.end(), is_low_precision);
    if (choice == GemmChoice::vendor && low)
      node.fail("kernel",
                "vendor trains in float32 and float64 only: 16-bit data trains with the native kernels "
                "(use native or auto)");
    const auto add = [&](DType dtype, LinearCase lc) {
      // The products are batch×in by in×1: auto picks by their size class.
      const GemmPick pick =
          ctx.pick_gemm(choice, s_.device, dtype, s_.sgd.batch_size, 1, s_.in,
                        is_low_precision(dtype) ? "16-bit data trains with the native kernels" : "");
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
      const std::uint64_t size = size_of(dtype), param_size = is_low_precision(dtype) ? sizeof(float) : size;
      c.device_bytes = device_bytes(s_, lc.parameters, lc.copy, size, param_size);
      c.work = work_of(lc, static_cast<double>(size), static_cast<double>(param_size));
      add_case(c, lc);
    };
    // Per dtype: the parameter rules, then training with data {per batch, resident} x loss
    // {synced per batch, logged on the device}. 16-bit data keeps float parameters, whose rules
    // float32's case checks: it trains only.
    for (DType dtype : dtypes) {
      if (!is_low_precision(dtype)) add(dtype, {true, false, false});
      for (bool copy : {true, false}) {
        for (bool sync : {true, false}) add(dtype, {false, copy, sync});
      }
    }
  }

  void setup(const CaseSpec& spec) override {
    if (case_of(spec).parameters) return setup_state<ParameterRule>(spec, s_);
    setup_state<Training, /*SixteenBit=*/true>(spec, s_);
  }

  /// One repetition's accounting (the top comment's): data of `size` bytes an entry, losses of
  /// `loss_size`.
  Work work_of(const LinearCase& c, double size, double loss_size) const {
    const double in = static_cast<double>(s_.in), rows = static_cast<double>(s_.samples);
    if (c.parameters) return {0, static_cast<double>(s_.sgd.batch_size) * (2 * in + 1)};
    const double epochs = static_cast<double>(s_.sgd.epochs), steps = static_cast<double>(s_.steps());
    return {(c.copy ? epochs * rows * (in + 1) * size : 0) + steps * loss_size,
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
       "training time with the loss copied to the host every batch / logged on the device"}},
     "samples: 64, batch_size: 32, epochs: 1, lr: 0.01, device: cpu"});

}  // namespace minigpu
