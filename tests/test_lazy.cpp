// The lazy experiment: the chain's kernels, its input errors, its cases and tiny runs.
#include "core/errors.hpp"
#include "core/backend.hpp"
#include "experiment_harness.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/power_shift.hpp"
#include "test_support.hpp"

#include <cmath>

namespace minigpu {
namespace {

const Finding* find(const std::vector<Finding>& findings, const std::string& name, DType dtype) {
  for (const auto& f : findings) {
    if (f.name == name && f.note.rfind(to_string(dtype) + ",", 0) == 0) return &f;
  }
  return nullptr;
}

std::string variant(const CaseSpec& spec) {
  for (const auto& [k, v] : spec.params) {
    if (k == "variant") return v;
  }
  return "";
}

TEST(LazyChain, KernelsMatchTheChaptersFormulas) {
  Kokkos::View<double*, HostMemSpace> x("test::x", 3), y("test::y", 3), z("test::z", 3);
  x(0) = 2.0;
  x(1) = -1.0;
  x(2) = 0.0;
  kernels::map(y, x, kernels::SquareMinus<double>{0.5});
  kernels::map(z, y, kernels::CubeMinus<double>{0.2});
  Kokkos::fence();
  const double want_y[] = {3.5, 0.5, -0.5};
  const double want_z[] = {42.675, -0.075, -0.325};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(y(i), want_y[i], 1e-12) << "at " << i;
    EXPECT_NEAR(z(i), want_z[i], 1e-12) << "at " << i;
  }
}

void expect_input_error(const std::string& entry, const std::string& key) {
  testing::expect_key_error("lazy", entry, key);
}

TEST(LazyConfig, BadValuesNameTheirKey) {
  expect_input_error("    elements: 0\n", "elements");
  expect_input_error("    elements: -3\n", "elements");
  expect_input_error("    elements: 1.5\n", "elements");
  expect_input_error("    dtypes: [int8]\n", "dtypes");
  expect_input_error("    device: somewhere\n", "device");
  expect_input_error("    device: gpu:4\n", "device");
}

TEST(LazyConfig, OneUnfencedCasePerDtype) {
  const RunPlan plan = testing::plan_yaml("experiments:\n  - name: lazy\n    elements: 1e3\n");
  const auto& cases = plan.experiments.at(0).cases;
  ASSERT_EQ(cases.size(), 3u);
  int unfenced = 0;
  for (const auto& c : cases) {
    EXPECT_EQ(c.dtype, DType::f32) << "run.dtype is the default";
    if (!c.fence_after_run) {
      ++unfenced;
      EXPECT_EQ(variant(c), "unfenced");
    }
  }
  EXPECT_EQ(unfenced, 1);
  const RunPlan both =
      testing::plan_yaml("experiments:\n  - name: lazy\n    elements: 1e3\n    dtypes: [float32, float64]\n");
  EXPECT_EQ(both.experiments.at(0).cases.size(), 6u);
}

void expect_tiny_run(Device expected_device) {
  const std::int64_t n = 3001;
  const RunOutcome out = testing::run_yaml(
      "run:\n  warmups: 1\n  repetitions: 2\nexperiments:\n  - name: lazy\n"
      "    elements: 3001\n    dtypes: [float32, float64]\n");
  EXPECT_TRUE(out.all_verified);
  ASSERT_EQ(out.results.size(), 6u);
  for (const auto& r : out.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    EXPECT_EQ(r.spec.device, expected_device);
    const double size = r.spec.dtype == DType::f32 ? 4 : 8;
    EXPECT_EQ(r.work.bytes, (variant(r.spec) == "host_detour" ? 6 : 4) * n * size) << r.spec.label;
    EXPECT_EQ(r.work.flops, 5.0 * n);
  }
  for (DType dtype : {DType::f32, DType::f64}) {
    const Finding* ratio = find(out.findings, "unfenced_over_fenced", dtype);
    ASSERT_NE(ratio, nullptr) << to_string(dtype);
    EXPECT_GT(ratio->value, 0);
    if (!kHasGpuBackend || uses_host_memory(expected_device)) {
      EXPECT_NE(ratio->note.find("fenced and unfenced timings agree"), std::string::npos) << ratio->note;
    } else {
      EXPECT_NE(ratio->note.find("only kernel launches"), std::string::npos) << ratio->note;
    }
    const Finding* detour = find(out.findings, "host_detour_over_fenced", dtype);
    ASSERT_NE(detour, nullptr) << to_string(dtype);
    EXPECT_GT(detour->value, 0);
  }
}

TEST(LazyRun, TinyChainOnDefaultDeviceVerifies) { expect_tiny_run(try_gpu()); }

class LazyEmulated : public testing::EmulatedGpus {};

TEST_F(LazyEmulated, TinyChainOnEmulatedGpuRunsSynchronously) { expect_tiny_run(gpu(0)); }

}  // namespace
}  // namespace minigpu
