// lazy: the chapter's asynchrony lesson. One elementwise chain on the device under test,
//   y(i) = x(i)*x(i) - 0.5;   z(i) = y(i)*y(i)*y(i) - 0.2
// timed three ways: fenced (the clock stops after Kokkos::fence()), unfenced (the clock stops
// when the launches return: the mistake behind a "GPU time: 0.001 s" cell), and host_detour
// (y copied to host memory and back between the two kernels, the chapter's CPU/GPU ping-pong);
// and fused: both steps in one pass (kernels::SquareCubeChain), y kept in registers — what a
// compiler like torch.compile makes of the chain, and the memory-bound ceiling's test.
// Accounting per repetition: bytes = 4·n·sizeof(T) (read x, write y, read y, write z), plus
// 2·n·sizeof(T) for the detour's two copies, 2·n·sizeof(T) fused (read x, write z);
// flops = 5·n (2 for the square step, 3 for the cube).
// On the host, arrays past the cache are written with streaming stores, so the bytes counted
// are the bytes moved: an ordinary store first reads the line it writes.
// x, y, z and the host copy of y are allocated in setup: an allocation would synchronise.
#include "ceilings/ceilings.hpp"
#include "config/common_keys.hpp"
#include "core/backend.hpp"
#include "core/checked.hpp"
#include "engine/case_grid.hpp"
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/power_shift.hpp"

#include <algorithm>
#include <cmath>

namespace minigpu {
namespace {

constexpr double kShiftY = 0.5;
constexpr double kShiftZ = 0.2;
constexpr std::uint64_t kSeed = 2024;
constexpr std::int64_t kMaxSamples = std::int64_t(1) << 20;
// 2^40 elements (8 TiB of float64 per array) is beyond any device; the bound keeps every
// byte count below exact in 64 bits.
constexpr std::int64_t kMaxElements = std::int64_t(1) << 40;

enum class Timing { fenced, unfenced, host_detour, fused };
const Names<Timing> kTimings = {{"fenced", Timing::fenced},
                                {"unfenced", Timing::unfenced},
                                {"host_detour", Timing::host_detour},
                                {"fused", Timing::fused}};

struct LazyCase {
  Timing timing = Timing::fenced;
  std::int64_t elements = 0;
};

template <class Mem, class T>
class ChainState : public CaseState {
 public:
  using View = Kokkos::View<T*, Mem>;

  explicit ChainState(const LazyCase& c)
      : detour_(c.timing == Timing::host_detour),
        fused_(c.timing == Timing::fused),
        x_("minigpu::lazy::x", c.elements),
        y_("minigpu::lazy::y", fused_ ? 0 : c.elements),
        z_("minigpu::lazy::z", c.elements),
        y_host_("minigpu::lazy::y_host", detour_ ? c.elements : 0) {
    kernels::fill_uniform(x_, kSeed, T(-1), T(1));
  }

  void run() override {
    if (fused_) {
      kernels::map(z_, x_, kernels::SquareCubeChain<T>{T(kShiftY), T(kShiftZ)});
      return;
    }
    kernels::map(y_, x_, kernels::SquareMinus<T>{T(kShiftY)});
    if (detour_) {
      Kokkos::deep_copy(y_host_, y_);
      Kokkos::deep_copy(y_, y_host_);
    }
    kernels::map(z_, y_, kernels::CubeMinus<T>{T(kShiftZ)});
  }

  /// z against the chain computed by a host loop from x, on every element or an even sample.
  Check verify() override {
    const auto xs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_);
    const auto zs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z_);
    const double tolerance = relative_tolerance<T>();
    const auto chain = [](T x) {
      const T y = x * x - T(kShiftY);
      return y * y * y - T(kShiftZ);
    };
    const kernels::SampledError e = kernels::sampled_max_abs_error(xs, zs, chain, kMaxSamples);
    return {e.worst <= tolerance, "max abs err " + io::significant(e.worst, 3) +
                                      " <= " + io::significant(tolerance, 1) + " over " +
                                      std::to_string(e.compared) + " elements"};
  }

 private:
  bool detour_, fused_;
  View x_, y_, z_;
  Kokkos::View<T*, Kokkos::HostSpace> y_host_;
};

/// The backend returns from a launch only once the kernel has finished.
bool runs_synchronously(Device d) { return !kHasGpuBackend || uses_host_memory(d); }

class LazyExperiment : public CaseList<LazyCase>, public Analysis {
 public:
  void setup(const CaseSpec& spec) override { setup_state<ChainState>(spec); }
  void configure(ConfigNode& node, const RunContext& ctx) override {
    device_ = read_device(node);
    elements_ = node.get_int("elements", 100000000, 1, kMaxElements);
    for (DType dtype : read_dtypes(node, ctx.default_dtype)) {
      const auto bytes = checked_mul<std::uint64_t>(static_cast<std::uint64_t>(elements_), size_of(dtype),
                                                    "lazy: bytes of one array");
      for (const auto& [name, timing] : kTimings) {
        CaseSpec c = case_spec("chain " + name + " n=" + std::to_string(elements_),
                               {{"variant", name}, {"elements", elements_}}, device_, dtype,
                               stream_ceiling(device_), "elements");
        c.fence_after_run = timing != Timing::unfenced;
        const bool detour = timing == Timing::host_detour, fused = timing == Timing::fused;
        const int passes = detour ? 6 : (fused ? 2 : 4);  // over one array, as accounted above
        c.work = {static_cast<double>(bytes) * passes, 5.0 * static_cast<double>(elements_)};
        const int arrays = detour && uses_host_memory(device_) ? 4 : (fused ? 2 : 3);
        c.device_bytes = checked_mul<std::uint64_t>(bytes, arrays, "lazy: bytes of a case");
        add_case(c, {timing, elements_});
      }
    }
  }

  std::vector<Finding> findings(const std::vector<CaseResult>& results) const override {
    std::vector<Finding> out;
    for (const auto& [dtype, timings] :
         rows_by_mode(results, row_dtype, [&](const CaseResult& r) { return case_of(r.spec).timing; })) {
      const CaseResult* fenced = row_of(timings, Timing::fenced);
      if (!has_median(fenced)) continue;
      const double base = fenced->seconds.median;
      const std::string dt = to_string(dtype);
      const std::string prefix = dt + ", " + describe(device_) + ": ";
      if (const CaseResult* unfenced = row_of(timings, Timing::unfenced)) {
        Finding f = ratio_finding(
            "unfenced_over_fenced_" + dt, *unfenced, *fenced,
            prefix + (runs_synchronously(device_) ? "backend runs kernels synchronously: fenced and "
                                                    "unfenced timings agree up to timing noise"
                                                  : "unfenced time measures only kernel launches"));
        // Both cases then time the same work, so the figure is 1 plus noise in every run, and
        // is flagged in every run rather than whenever the noise happens to separate them.
        if (runs_synchronously(device_))
          f.mark_unreliable("a synchronous backend times the same work both ways");
        out.push_back(f);
      }
      const CaseResult* fused = row_of(timings, Timing::fused);
      if (has_median(fused)) {
        out.push_back(ratio_finding("unfused_over_fused_" + dt, *fenced, *fused,
                                    prefix + "two passes over memory (y written and read back) vs one: " +
                                        io::significant(fused->gbps) + " GB/s fused, " +
                                        io::significant(fenced->gbps) + " GB/s unfused"));
      }
      if (const CaseResult* detour = row_of(timings, Timing::host_detour)) {
        const std::uint64_t y_bytes = static_cast<std::uint64_t>(elements_) * size_of(dtype);
        out.push_back(ratio_finding(
            "host_detour_over_fenced_" + dt, *detour, *fenced,
            prefix + "y (" + io::human_bytes(y_bytes) + ") to host memory and back between kernels" +
                (uses_host_memory(device_) ? ", here two host-to-host copies" : "") + ": " +
                io::significant(detour->seconds.median) + " s vs " + io::significant(base) + " s"));
      }
    }
    return out;
  }

 private:
  Device device_;
  std::int64_t elements_ = 0;
};

}  // namespace

MINIGPU_REGISTER_EXPERIMENT(
    LazyExperiment,
    {"lazy",
     "Asynchronous launches: fenced vs unfenced timing, and a detour through host memory",
     "why does a \"GPU time\" cell without a fence lie?",
     "lazy_fence.png",
     {{"unfenced_over_fenced_<dtype>", "x",
       "time with no fence before the clock stops / fenced time: well below 1 on an asynchronous GPU "
       "(only the launches are timed), 1 on a synchronous backend"},
      {"unfused_over_fused_<dtype>", "x",
       "two passes over memory (y written and read back) / one fused pass"},
      {"host_detour_over_fenced_<dtype>", "x",
       "y copied to host memory and back between the kernels / the fenced device-only chain"}},
     "elements: 64, dtypes: [float32], device: cpu"});

}  // namespace minigpu
