// lazy: the chapter's asynchrony lesson. One elementwise chain on the device under test,
//   y(i) = x(i)*x(i) - 0.5;   z(i) = y(i)*y(i)*y(i) - 0.2
// timed three ways: fenced (the clock stops after Kokkos::fence()), unfenced (the clock stops
// when the launches return: the mistake behind a "GPU time: 0.001 s" cell), and host_detour
// (y copied to host memory and back between the two kernels, the chapter's CPU/GPU ping-pong).
// Accounting per repetition: bytes = 4·n·sizeof(T) (read x, write y, read y, write z), plus
// 2·n·sizeof(T) for the detour's two copies; flops = 5·n (2 for the square step, 3 for the cube).
// x, y, z and the host copy of y are allocated in setup: an allocation would synchronise.
#include "config/common_keys.hpp"
#include "core/backend.hpp"
#include "core/tensor.hpp"
#include "experiments/registry.hpp"
#include "io/format.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/power_shift.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

namespace minigpu {
namespace {

constexpr double kShiftY = 0.5;
constexpr double kShiftZ = 0.2;
constexpr std::uint64_t kSeed = 2024;
constexpr std::int64_t kMaxSamples = std::int64_t(1) << 20;

struct Chain {
  virtual ~Chain() = default;
  virtual void run(bool detour) = 0;
  virtual Check verify() const = 0;
};

template <class T>
struct ChainOf : Chain {
  Device device;
  Tensor<T> x, y, z, y_host;

  ChainOf(Device d, std::int64_t n, bool detour)
      : device(d),
        x({n}, d, "minigpu::lazy::x"),
        y({n}, d, "minigpu::lazy::y"),
        z({n}, d, "minigpu::lazy::z") {
    if (detour) y_host = Tensor<T>({n}, cpu(), "minigpu::lazy::y_host");
    with_views(
        device, [](const auto& xv) { kernels::fill_uniform(xv, kSeed, T(-1), T(1)); }, x);
  }

  void run(bool detour) override {
    const auto& host = y_host.host_view();
    with_views(
        device,
        [&](const auto& xv, const auto& yv, const auto& zv) {
          kernels::map(yv, xv, kernels::SquareMinus<T>{T(kShiftY)});
          if (detour) {
            Kokkos::deep_copy(host, yv);
            Kokkos::deep_copy(yv, host);
          }
          kernels::map(zv, yv, kernels::CubeMinus<T>{T(kShiftZ)});
        },
        x, y, z);
  }

  /// z against the chain computed by a host loop from x, on every element or an even sample.
  Check verify() const override {
    const std::vector<T> xs = x.to_vector();
    const std::vector<T> zs = z.to_vector();
    const auto n = static_cast<std::int64_t>(xs.size());
    const std::int64_t stride = std::max<std::int64_t>(1, n / kMaxSamples);
    const double tolerance = sizeof(T) == 4 ? 1e-5 : 1e-12;
    double worst = 0;
    std::int64_t checked = 0;
    auto check = [&](std::int64_t i) {
      const T yi = xs[i] * xs[i] - T(kShiftY);
      const T want = yi * yi * yi - T(kShiftZ);
      worst = std::max(worst, std::abs(static_cast<double>(zs[i]) - static_cast<double>(want)));
      ++checked;
    };
    for (std::int64_t i = 0; i < n; i += stride) check(i);
    if ((n - 1) % stride != 0) check(n - 1);
    char detail[128];
    std::snprintf(detail, sizeof(detail), "max abs err %.3g <= %.0e over %lld elements", worst, tolerance,
                  static_cast<long long>(checked));
    return {worst <= tolerance, detail};
  }
};

/// The backend returns from a launch only once the kernel has finished.
bool runs_synchronously(Device d) { return !kHasGpuBackend || uses_host_memory(d); }

}  // namespace

class LazyExperiment : public Experiment {
 public:
  void configure(ConfigNode& node, const RunContext& ctx) override {
    device_ = read_device(node);
    elements_ = node.get_int("elements", 100000000, 1);
    dtypes_ = read_dtypes(node, ctx.default_dtype);
  }

  std::vector<CaseSpec> cases() const override {
    std::vector<CaseSpec> out;
    for (DType dtype : dtypes_) {
      const std::uint64_t bytes = static_cast<std::uint64_t>(elements_) * (dtype == DType::f32 ? 4 : 8);
      for (const char* variant : {"fenced", "unfenced", "host_detour"}) {
        CaseSpec c;
        c.label = std::string("chain ") + variant + " n=" + std::to_string(elements_);
        c.params = {{"variant", variant}, {"elements", std::to_string(elements_)}};
        c.device = device_;
        c.dtype = dtype;
        c.fence_after_run = std::string(variant) != "unfenced";
        const bool host_copy_on_device = std::string(variant) == "host_detour" && uses_host_memory(device_);
        c.device_bytes = bytes * (host_copy_on_device ? 4 : 3);
        out.push_back(c);
      }
    }
    return out;
  }

  void setup(const CaseSpec& spec) override {
    detour_ = spec.param("variant") == "host_detour";
    element_bytes_ = spec.dtype == DType::f32 ? 4 : 8;
    if (spec.dtype == DType::f32) {
      chain_ = std::make_unique<ChainOf<float>>(spec.device, elements_, detour_);
    } else {
      chain_ = std::make_unique<ChainOf<double>>(spec.device, elements_, detour_);
    }
  }

  void run_once() override { chain_->run(detour_); }

  Check verify() override { return chain_->verify(); }

  Work work() const override {
    const double pass = static_cast<double>(elements_) * element_bytes_;
    return {pass * (detour_ ? 6 : 4), 5.0 * static_cast<double>(elements_)};
  }

  void teardown() override { chain_.reset(); }

  std::vector<Finding> summarize(const std::vector<CaseResult>& results) const override {
    std::map<DType, std::map<std::string, const CaseResult*>> by_dtype;
    for (const auto& r : results) by_dtype[r.spec.dtype][r.spec.param("variant")] = &r;
    std::vector<Finding> out;
    for (const auto& [dtype, variants] : by_dtype) {
      const auto fenced = variants.find("fenced");
      if (fenced == variants.end() || fenced->second->seconds.median <= 0) continue;
      const double base = fenced->second->seconds.median;
      const Device device = fenced->second->spec.device;
      const std::string prefix = to_string(dtype) + ", " + describe(device) + ": ";
      const auto unfenced = variants.find("unfenced");
      if (unfenced != variants.end()) {
        out.push_back(
            {"", "unfenced_over_fenced", unfenced->second->seconds.median / base, "x",
             prefix + (runs_synchronously(device) ? "backend runs kernels synchronously: fenced and unfenced "
                                                    "timings agree up to timing noise"
                                                  : "unfenced time measures only kernel launches")});
      }
      const auto detour = variants.find("host_detour");
      if (detour != variants.end()) {
        const std::uint64_t y_bytes = static_cast<std::uint64_t>(elements_) * (dtype == DType::f32 ? 4 : 8);
        out.push_back(
            {"", "host_detour_over_fenced", detour->second->seconds.median / base, "x",
             prefix + "y (" + io::human_bytes(y_bytes) + ") to host memory and back between kernels" +
                 (uses_host_memory(device) ? ", here two host-to-host copies" : "") + ": " +
                 io::significant(detour->second->seconds.median) + " s vs " + io::significant(base) + " s"});
      }
    }
    return out;
  }

 private:
  Device device_;
  std::int64_t elements_ = 0;
  std::vector<DType> dtypes_;
  bool detour_ = false;
  int element_bytes_ = 4;
  std::unique_ptr<Chain> chain_;
};

MINIGPU_REGISTER_EXPERIMENT(
    LazyExperiment, "lazy",
    "Asynchronous launches: fenced vs unfenced timing, and a detour through host memory");

}  // namespace minigpu
