// logging: the chapter's exercise 3 — what does logging a value every step cost when the
// value lives on the GPU? `steps` steps of an n×n matmul, normalised so values stay finite:
//   Y_t = A·X_t;  log[t] = 1/‖Y_t‖_F;  X_{t+1} = Y_t·log[t]      (X_0 fixed)
// One step is two launches: the GEMM, scaled by the previous step's log entry read in device
// memory (Y_t = log[t-1]·A·Y_{t-1}; the vendor BLAS's α, the native kernel's epilogue), and one
// reduction that writes the log entry; nothing is allocated or copied. The log keeps the
// reciprocal norm because that is the factor the next GEMM needs; the host inverts it when it
// reads the log.
// sync_each_step copies log[t] to the host every step (a host sync, like print() or .item());
// device_log copies the whole log to the host once, at the end. In bfloat16 and float16 the
// matrices are stored in the 16-bit type, products and norms sum in float and the log is float
// (mixed precision); 16-bit products take no α, so they add one scaling pass per step.
// Accounting per repetition (s = sizeof(T)):
//   flops = steps·(2n³ + 3n²)   (matmul; the scaling; squares and sum for the norm)
//   bytes = steps·(4n²·s + 2·e)  (matmul reads A, X, writes Y: 3n²; norm reads Y: n²; the entry
//           stored, then copied to the host; e = the log's entry, float for 16-bit s), plus
//           steps·2n²·s for the scaling pass (16-bit)
#include "config/common_keys.hpp"
#include "core/backend.hpp"
#include "engine/case_grid.hpp"
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm.hpp"
#include "kernels/matmul_reference.hpp"
#include "kernels/matmul_widened.hpp"
#include "kernels/reduce.hpp"
#include "kernels/scale.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace minigpu {
namespace {

enum class Mode { sync_each_step, device_log };
const Names<Mode> kModes = {{"sync_each_step", Mode::sync_each_step}, {"device_log", Mode::device_log}};
// The host recomputes the recurrence for as many steps as fit this many flops.
constexpr double kHostCheckFlops = 4e8;

/// What verify() compares across a dtype's cases: the recurrence recomputed on the host in double
/// from the same A and X_0 (once, for the most steps any case checks), and the last log and mode.
struct LogBook {
  std::vector<double> reference;
  std::optional<std::pair<Mode, std::vector<double>>> last;
};

struct LoggingCase {
  Mode mode = Mode::device_log;
  GemmKernel kernel = GemmKernel::vendor;
  std::int64_t n = 0, steps = 0;
  LogBook* book = nullptr;  // shared by the cases of one dtype
};

template <class Mem, class T>
class LoggingState : public CaseState {
 public:
  using View = Kokkos::View<T*, Mem>;
  using Acc = accumulator_t<T>;  // the log's and the sums' type: float for 16-bit storage
  static constexpr bool k16Bit = sizeof(T) == 2;

  explicit LoggingState(const LoggingCase& c)
      : c_(c),
        book_(c.book),
        a_("minigpu::logging::A", c.n * c.n),
        x0_("minigpu::logging::X0", c.n * c.n),
        y_{View("minigpu::logging::Y_even", c.n * c.n), View("minigpu::logging::Y_odd", c.n * c.n)},
        log_("minigpu::logging::device_log", c.steps),
        host_log_("minigpu::logging::host_log", c.steps),
        product_(c.kernel, c.n) {
    // Positive entries give A a dominant real eigenvalue well above the rest, so the
    // iteration converges and rounding differences between devices die out, not grow.
    kernels::fill_uniform(a_, 11, Acc(0), Acc(1));
    kernels::fill_uniform(x0_, 12, Acc(0), Acc(1));
  }

  void run() override {
    const GemmDims dims = dense_gemm(c_.n, c_.n, c_.n);
    const bool sync = c_.mode == Mode::sync_each_step;
    for (std::int64_t t = 0; t < c_.steps; ++t) {
      const View& y = y_[t % 2];
      const View& x = t == 0 ? x0_ : y_[(t - 1) % 2];
      const auto entry = Kokkos::subview(log_, t);
      if constexpr (k16Bit) {
        product_(y, a_, x);  // x was scaled in place last step
        kernels::inverse_frobenius_norm_into(y, entry);
        kernels::scale_by_device_scalar(y, entry);
      } else {
        if (t == 0) kernels::gemm(c_.kernel, y, a_, x, dims, false);
        if (t > 0) kernels::gemm_scaled(c_.kernel, y, a_, x, dims, Kokkos::subview(log_, t - 1));
        kernels::inverse_frobenius_norm_into(y, entry);
      }
      // Reading the entry on the host waits for the device: the sync the chapter warns about.
      if (sync) host_log_(t) = read_on_host(entry);
    }
    if (!sync) Kokkos::deep_copy(host_log_, log_);
  }

  Check verify() override {
    const std::vector<double> got = logged();
    const double n = static_cast<double>(c_.n), eps = std::numeric_limits<Acc>::epsilon();
    const auto host_steps = static_cast<std::int64_t>(std::min<double>(
        static_cast<double>(c_.steps), std::max(8.0, kHostCheckFlops / (2.0 * n * n * n + 3.0 * n * n))));
    if (static_cast<std::int64_t>(book_->reference.size()) < host_steps) {
      const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a_);
      const auto x0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x0_);
      book_->reference = kernels::power_iteration_norms(a.data(), x0.data(), c_.n, host_steps);
    }
    // The device sums in Acc, the host in double: rounding of sums of n and n² terms. 16-bit
    // storage rounds Y and the scaled X each step (u each); what that puts into X decays with
    // A's second eigenvalue over its first (about 0.06 at n = 100), so a few u in all.
    const auto e = kernels::sequence_errors(got, book_->reference, static_cast<std::size_t>(host_steps));
    Check check = tolerance_check("first " + std::to_string(host_steps) + " steps vs host: ", e.max_rel,
                                  32.0 * n * eps + (k16Bit ? 8.0 * unit_roundoff(dtype_of<T>::value) : 0.0));
    check.error = e.error;
    // The other mode ran the same kernels in the same order, so the logs should agree to rounding.
    if (book_->last && book_->last->first != c_.mode) {
      check.also(tolerance_check("all steps vs " + name_of(kModes, book_->last->first) + ": ",
                                 kernels::max_rel_diff(got, book_->last->second, got.size()), 16.0 * eps));
    }
    book_->last = {c_.mode, got};
    return check;
  }

 private:
  /// The norms the host received: the inverses of the logged factors.
  std::vector<double> logged() const {
    Kokkos::fence();
    std::vector<double> norms(static_cast<std::size_t>(c_.steps));
    for (std::int64_t t = 0; t < c_.steps; ++t) norms[t] = 1.0 / static_cast<double>(host_log_(t));
    return norms;
  }

  LoggingCase c_;
  LogBook* book_;
  View a_, x0_, y_[2];
  Kokkos::View<Acc*, Mem> log_;
  Kokkos::View<Acc*, Kokkos::HostSpace> host_log_;
  kernels::AnyMatmul<Mem, T> product_;
};

class LoggingExperiment : public CaseList<LoggingCase>, public Analysis {
 public:
  void configure(ConfigNode& node, const RunContext& ctx) override {
    n_ = node.get_int("n", 100, 1, 100000);
    steps_ = node.get_int("steps", 1000, 1, 10000000);
    const Device device = read_device(node);
    const GemmChoice choice = read_gemm_kernel(node, kernels::vendor_gemm_refusal(device, "native"));
    const auto dtypes = read_dtypes(node, ctx.default_dtype, "dtypes", Precisions::low_too);
    const std::string no_vendor =
        kernels::vendor_refusal(dtypes, {device}, true, false, "use native or auto");
    if (choice == GemmChoice::vendor && !no_vendor.empty()) node.fail("kernel", no_vendor);
    for (DType dtype : dtypes) {
      const GemmPick pick = ctx.pick_gemm(choice, device, dtype, n_, n_, n_);
      for (const auto& [name, mode] : kModes) {
        CaseSpec c = gemm_case_spec(name + " " + to_string(pick.kernel),
                                    {{"n", n_}, {"steps", steps_}, {"mode", name}}, pick, device, dtype, "n");
        const double steps = static_cast<double>(steps_), n = static_cast<double>(n_);
        // 16-bit storage logs in float, and scales in a pass of its own.
        const bool low = is_low_precision(dtype);
        const std::uint64_t s = size_of(dtype), log_entry = low ? sizeof(float) : s;
        c.work = {
            steps * ((low ? 6 : 4) * n * n * static_cast<double>(s) + 2.0 * static_cast<double>(log_entry)),
            steps * (2 * n * n * n + 3 * n * n)};
        c.flops_estimate = steps * gemm_flops(n_, n_, n_);
        c.device_bytes = 4 * static_cast<std::uint64_t>(n_ * n_) * s +
                         static_cast<std::uint64_t>(steps_) * log_entry +
                         (low && pick.kernel == GemmKernel::native
                              ? kernels::widened_matmul_bytes(dtype, uses_host_memory(device), n_)
                              : 0);
        add_case(c, {mode, pick.kernel, n_, steps_, &books_[dtype]});
      }
    }
  }

  void setup(const CaseSpec& spec) override { setup_state<LoggingState, true>(spec); }

  std::vector<Finding> findings(const std::vector<CaseResult>& results) const override {
    const auto note = [&](const CaseResult& sync, const CaseResult& log) {
      const double per_step_us =
          (sync.seconds.median - log.seconds.median) / static_cast<double>(steps_) * 1e6;
      return to_string(sync.spec.dtype) + ", n=" + std::to_string(n_) + ", " + std::to_string(steps_) +
             " steps, " + sync.spec.param("kernel") + " matmul: " +
             (per_step_us > 0 ? "a host sync adds " + io::significant(per_step_us, 2) + " us per step"
                              : "no measurable cost of a host sync (difference within noise)");
    };
    std::vector<Finding> out = held_fixed_ratios(results, "mode", "sync_each_step", "device_log",
                                                 "sync_over_device_log_<dtype>", note);
    // In host memory the "sync" waits for nothing and reads the entry in place: the ratio is 1
    // plus noise in every run, so it is flagged in every run.
    for (Finding& f : out)
      if (uses_host_memory(results.front().spec.device))
        f.mark_unreliable("in host memory a host sync waits for nothing");
    return out;
  }

 private:
  std::int64_t n_ = 100, steps_ = 1000;
  std::map<DType, LogBook> books_;
};

}  // namespace

MINIGPU_REGISTER_EXPERIMENT(
    LoggingExperiment,
    {"logging",
     "Logging a device value each step: host sync per step vs a device-side log",
     "exercise 3: what does a host sync per step cost?",
     "logging_sync.png",
     {{"sync_over_device_log_<dtype>", "x",
       "time with the logged value copied to the host every step / logged on the device and copied once"}},
     "n: 9, steps: 3, dtypes: [float64], device: cpu"});

}  // namespace minigpu
