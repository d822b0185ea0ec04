// multi_gpu_concurrency: the chapter's exercise 4. k matrix multiplies C = A·B of n×n,
// done one after another on one GPU (rank 0; the other ranks idle) vs at the same time on
// k GPUs (k = the job's ranks, one multiply each, every rank bound to its own GPU).
//   each multiply runs `kernel`: auto (default: the faster measured), vendor (the BLAS) or
//   native (kernels/gemm.hpp)
//   accounting: flops = 2·n³ per multiply, k·multiplies_per_gpu multiplies per repetition in
//   both cases (the same total work, so the time ratio is the speedup); bytes = 3·n²·sizeof(T)
//   per multiply (compulsory traffic).
// Speedup = t(sequential)/t(concurrent), efficiency = speedup/k; ideal is k and 100 %.
#include "config/common_keys.hpp"
#include "core/profile_region.hpp"
#include "engine/case_grid.hpp"
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm.hpp"
#include "kernels/matmul_check.hpp"

#include <algorithm>
#include <cmath>

namespace minigpu {
namespace {

struct ConcurrencyCase {
  bool sequential = false;
  GemmKernel kernel = GemmKernel::vendor;
  std::int64_t n = 0;
  std::int64_t multiplies = 0;  ///< on this rank: k·per_gpu on rank 0 in sequence, else per_gpu
};

template <class Mem, class T>
class ConcurrencyState : public CaseState {
 public:
  using View = Kokkos::View<T*, Mem>;

  explicit ConcurrencyState(const ConcurrencyCase& c)
      : c_(c),
        a_("minigpu::concurrency::A", c.n * c.n),
        b_("minigpu::concurrency::B", c.n * c.n),
        out_("minigpu::concurrency::C", c.n * c.n) {
    // Every rank multiplies the same matrices, so any rank's C can be checked the same way.
    kernels::fill_uniform(a_, 1, T(-1), T(1));
    kernels::fill_uniform(b_, 2, T(-1), T(1));
  }

  void run() override {
    // No messages: each rank only multiplies, alone (sequential) or beside the others.
    const ProfileRegion region("compute");
    for (std::int64_t i = 0; i < c_.multiplies; ++i)
      kernels::matmul(c_.kernel, out_, a_, b_, c_.n, c_.n, c_.n);
  }

  /// Sampled rows of C against a host inner product in double: an independent reference.
  Check verify() override {
    if (c_.multiplies == 0) return {true, "idle rank"};
    const double tol = relative_tolerance<T>() * std::sqrt(double(c_.n)) * 10;
    const double worst = kernels::sampled_rows_error(out_, a_, b_, c_.n);
    return {worst <= tol,
            "max rel err " + io::significant(worst, 2) + " (tol " + io::significant(tol, 2) + ")"};
  }

 private:
  ConcurrencyCase c_;
  View a_, b_, out_;
};

class MultiGpuConcurrencyExperiment : public CaseList<ConcurrencyCase>, public Analysis {
 public:
  void setup(const CaseSpec& spec) override { setup_state<ConcurrencyState>(spec); }
  void configure(ConfigNode& node, const RunContext& ctx) override {
    ctx_ = ctx;
    n_ = node.get_int("n", 256, 1, 100000);
    per_gpu_ = node.get_int("multiplies_per_gpu", 1, 1, 10000);
    device_ = read_device(node);
    const GemmChoice choice = read_gemm_kernel(node, kernels::vendor_gemm_refusal(device_, "native"));
    for (DType dtype : read_dtypes(node, ctx.default_dtype)) {
      const GemmPick pick = ctx.pick_gemm(choice, device_, dtype, n_, n_, n_);
      for (bool sequential : {true, false}) {
        const char* mode = sequential ? "sequential" : "concurrent";
        CaseSpec c =
            gemm_case_spec(std::string(mode) + " k=" + std::to_string(ctx_.ranks()) +
                               " n=" + std::to_string(n_) + " " + to_string(pick.kernel),
                           {{"mode", mode}, {"k", ctx_.ranks()}, {"n", n_}, {"multiplies_per_gpu", per_gpu_}},
                           pick, device_, dtype, "n");
        c.ceiling_scale = sequential ? 1 : ctx_.ranks();
        const std::int64_t all = per_gpu_ * ctx_.ranks();  // per repetition, by all ranks, in both modes
        const std::int64_t mine = sequential ? (ctx_.rank() == 0 ? all : 0) : per_gpu_;
        const std::uint64_t matrices = 3 * static_cast<std::uint64_t>(n_ * n_) * size_of(dtype);  // A, B, C
        c.work = {static_cast<double>(all) * static_cast<double>(matrices),
                  static_cast<double>(all) * gemm_flops(n_, n_, n_)};
        c.flops_estimate = static_cast<double>(sequential ? all : per_gpu_) * gemm_flops(n_, n_, n_);
        c.device_bytes = matrices;
        c.this_rank_works = mine > 0;
        add_case(c, {sequential, pick.kernel, n_, mine});
      }
    }
  }

  std::vector<Finding> findings(const std::vector<CaseResult>& results) const override {
    std::vector<Finding> out;
    // Say what the k devices are: "k=2 GPUs" only where they are real.
    const std::string k = std::to_string(ctx_.ranks());
    const int gpus = ctx_.binding.visible_gpus;  // fewer than the node's ranks: they share GPUs
    const bool shared = device_.is_gpu() && gpus > 0 && gpus < ctx_.binding.local_size;
    const std::string on = shared ? " ranks on " + std::to_string(gpus) + " GPU(s)" : " GPUs";
    const std::string what =
        "k=" + k +
        (device_.is_gpu() ? gpus_are_emulated() && !shared ? " emulated GPUs (host memory)" : on
                          : " ranks on cpu");
    for (const auto& [dtype, by_mode] :
         rows_by_mode(results, row_dtype, [&](const CaseResult& r) { return case_of(r.spec).sequential; })) {
      const CaseResult *sequential = row_of(by_mode, true), *concurrent = row_of(by_mode, false);
      if (!sequential || !has_median(concurrent)) continue;
      if (ctx_.ranks() < 2) {  // one multiply alone either way: the two cases time the same work
        out.push_back(needs_ranks("speedup_" + to_string(dtype), "x", "k devices at once", 2, 1));
        out.push_back(needs_ranks("efficiency_" + to_string(dtype), "%", "k devices at once", 2, 1));
        continue;
      }
      auto [speedup, efficiency] = speedup_and_efficiency(
          to_string(dtype), *sequential, *concurrent, 1.0 / ctx_.ranks(),
          what + " at once vs one after another on one; ideal " + k, "speedup/k; ideal 100 %");
      for (Finding* f : {&speedup, &efficiency})
        if (shared) f->mark_unreliable("ranks share GPUs: " + what + " is not k GPUs at once");
      out.push_back(speedup);
      out.push_back(efficiency);
    }
    return out;
  }

 private:
  Device device_;
  RunContext ctx_;
  std::int64_t n_ = 256, per_gpu_ = 1;
};

}  // namespace

MINIGPU_REGISTER_EXPERIMENT(
    MultiGpuConcurrencyExperiment,
    {"multi_gpu_concurrency",
     "Exercise 4: k matmuls one after another on one GPU vs at once on k GPUs (k ranks)",
     "exercise 4: k GPUs at once vs one in turn",
     "concurrency.png",
     {{"speedup_<dtype>", "x", "t(k matmuls in turn on one GPU) / t(one matmul on each of k GPUs at once)"},
      {"efficiency_<dtype>", "%", "speedup / k, with its 95 % interval"}},
     "n: 8, dtypes: [float32], device: cpu"});

}  // namespace minigpu
