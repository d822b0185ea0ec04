// multi_gpu_concurrency: the chapter's exercise 4. k matrix multiplies C = A·B of n×n in turn on
// one GPU (rank 0's; the others wait) vs at once on k GPUs (k = the job's ranks), as the phases of
// every repetition, each ending at a barrier: "in_turn", "warm_up" (one on every rank: a first
// multiply after a wait ran 6 % slow) and "at_once", so a spell of a slow machine falls on both
// modes alike (docs/measuring.md, "Exercise 4 in every repetition"). Per repetition k·m multiplies
// (m = multiplies_per_gpu) in each mode and k in the warm-up, 2·n³ flops and 3·n²·sizeof(T) bytes
// each. Speedup = t(in_turn)/t(at_once) from the phases' medians, efficiency = speedup/k (ideal 100 %).
#include "comm/collectives.hpp"
#include "config/common_keys.hpp"
#include "core/profile_region.hpp"
#include "engine/case_grid.hpp"
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm.hpp"
#include "kernels/matmul_check.hpp"

#include <array>
#include <cmath>
#include <functional>
#include <utility>

namespace minigpu {
namespace {

struct ConcurrencyCase {
  GemmKernel kernel = GemmKernel::vendor;
  std::int64_t n = 0;
  std::array<std::pair<const char*, std::int64_t>, 3> phases;  ///< and this rank's multiplies in each
};
/// Ends a phase on every rank together, when its last multiply on any rank does (a barrier).
using PhaseEnd = std::function<void(const char*)>;

template <class Mem, class T>
class ConcurrencyState : public CaseState {
 public:
  ConcurrencyState(const ConcurrencyCase& c, const PhaseEnd& end)
      : c_(c),
        end_(end),
        a_("minigpu::concurrency::A", c.n * c.n),
        b_("minigpu::concurrency::B", c.n * c.n),
        out_("minigpu::concurrency::C", c.n * c.n) {
    // Every rank multiplies the same matrices, so any rank's C can be checked the same way.
    kernels::fill_uniform(a_, 1, T(-1), T(1));
    kernels::fill_uniform(b_, 2, T(-1), T(1));
  }

  void run() override {
    // No messages: each rank only multiplies, alone (in turn) or beside the others.
    const ProfileRegion region("compute");
    for (const auto& [phase, count] : c_.phases) {
      for (std::int64_t i = 0; i < count; ++i) kernels::matmul(c_.kernel, out_, a_, b_, c_.n, c_.n, c_.n);
      end_(phase);
    }
  }

  /// Sampled rows of C (each rank's at-once product) against a host inner product in double.
  Check verify() override {
    const double tol = relative_tolerance<T>() * std::sqrt(double(c_.n)) * 10;
    const double worst = kernels::sampled_rows_error(out_, a_, b_, c_.n);
    return {worst <= tol,
            "max rel err " + io::significant(worst, 2) + " (tol " + io::significant(tol, 2) + ")"};
  }

 private:
  ConcurrencyCase c_;
  PhaseEnd end_;
  Kokkos::View<T*, Mem> a_, b_, out_;
};

class MultiGpuConcurrencyExperiment : public CaseList<ConcurrencyCase>, public Analysis {
 public:
  void setup(const CaseSpec& spec) override {
    setup_state<ConcurrencyState>(spec, PhaseEnd([this](const char* phase) {
                                    Kokkos::fence();
                                    comm::barrier(ctx_.comm);
                                    end_phase(phase);
                                  }));
  }
  void configure(ConfigNode& node, const RunContext& ctx) override {
    ctx_ = ctx;
    n_ = node.get_int("n", 256, 1, 100000);
    per_gpu_ = node.get_int("multiplies_per_gpu", 1, 1, 10000);
    device_ = read_device(node);
    const GemmChoice choice = read_gemm_kernel(node, kernels::vendor_gemm_refusal(device_, "native"));
    for (DType dtype : read_dtypes(node, ctx.default_dtype)) {
      const GemmPick pick = ctx.pick_gemm(choice, device_, dtype, n_, n_, n_);
      CaseSpec c = gemm_case_spec(
          "k=" + std::to_string(ctx_.ranks()) + " n=" + std::to_string(n_) + " " + to_string(pick.kernel),
          {{"k", ctx_.ranks()}, {"n", n_}, {"multiplies_per_gpu", per_gpu_}}, pick, device_, dtype, "n");
      // At most k devices work at once: k times the ceiling bounds the row's mixed rate.
      c.ceiling_scale = ctx_.ranks();
      const std::int64_t all = per_gpu_ * ctx_.ranks();  // in each mode, by all ranks together
      const double multiplies = 2.0 * static_cast<double>(all) + ctx_.ranks();    // both modes', warm-up's
      c.device_bytes = 3 * static_cast<std::uint64_t>(n_ * n_) * size_of(dtype);  // A, B, C
      c.work = {multiplies * static_cast<double>(c.device_bytes), multiplies * gemm_flops(n_, n_, n_)};
      c.flops_estimate = static_cast<double>(all + 1 + per_gpu_) * gemm_flops(n_, n_, n_);  // rank 0's
      const std::int64_t in_turn = ctx_.rank() == 0 ? all : 0;
      add_case(c, {pick.kernel, n_, {{{"in_turn", in_turn}, {"warm_up", 1}, {"at_once", per_gpu_}}}});
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
    for (const CaseResult& r : results) {
      const Stats *in_turn = r.phase("in_turn"), *at_once = r.phase("at_once");
      if (!in_turn || !at_once || at_once->median <= 0) continue;  // a resumed row from before the phases
      if (ctx_.ranks() < 2) {  // one multiply alone either way: the two phases time the same work
        out.push_back(needs_ranks("speedup_" + to_string(r.spec.dtype), "x", "k devices at once", 2, 1));
        out.push_back(needs_ranks("efficiency_" + to_string(r.spec.dtype), "%", "k devices at once", 2, 1));
        continue;
      }
      auto [speedup, efficiency] =
          speedup_and_efficiency(to_string(r.spec.dtype), *in_turn, *at_once, 1.0 / ctx_.ranks(),
                                 what + " at once vs one after another on one (medians: in turn " +
                                     io::significant(in_turn->median, 3) + " s, at once " +
                                     io::significant(at_once->median, 3) + " s); ideal " + k,
                                 "speedup/k; ideal 100 %");
      for (Finding* f : {&speedup, &efficiency}) {
        if (shared) f->mark_unreliable("ranks share GPUs: " + what + " is not k GPUs at once");
        out.push_back(f->drawn_from({&r}));
      }
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
     "Exercise 4: k matmuls in turn on one GPU vs at once on k GPUs (k ranks), both every repetition",
     "exercise 4: k GPUs at once vs one in turn",
     "concurrency.png",
     {{"speedup_<dtype>", "x", "t(k matmuls in turn on one GPU) / t(one on each of k GPUs at once)"},
      {"efficiency_<dtype>", "%", "speedup / k, with its 95 % interval"}},
     "n: 8, dtypes: [float32], device: cpu"});

}  // namespace minigpu
