// The matmul experiment: its input errors, and the experiment end to end at tiny sizes on every
// device (the kernels and their checks: test_matmul.cpp; below float32: test_matmul_precisions.cpp).
#include "core/errors.hpp"
#include "core/tensor.hpp"
#include "experiment_harness.hpp"
#include "kernels/gemm.hpp"
#include "test_support.hpp"

#include <string>

namespace minigpu {
namespace {

void expect_input_error(const std::string& experiment_yaml, const std::string& key,
                        const std::string& words = "") {
  testing::expect_key_error("matmul", experiment_yaml, key, words);
}

TEST(MatmulConfig, BadValuesNameTheirKey) {
  expect_input_error("    sizes: [16, 0]\n", "sizes", "between 1 and");
  expect_input_error("    sizes: []\n", "sizes");
  expect_input_error("    dtypes: [float8]\n", "dtypes", "float8");
  try {  // matmul takes the 16-bit types: a wrong name here is not told they are matmul-only
    testing::plan_yaml("experiments:\n  - name: matmul\n    dtypes: [bf16]\n");
    ADD_FAILURE() << "bf16 (not a dtype name) was taken";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("only so far"), std::string::npos) << e.what();
  }
  // A product below float that no listed device's vendor GEMM runs is refused, never skipped.
  if (num_gpus() == 0 || !kernels::has_mixed_vendor_gemm(gpu())) {
    expect_input_error("    dtypes: [float16]\n", "variants", "vendor has no float16 GEMM for cpu");
    expect_input_error("    variants: [vendor_tf32]\n", "variants", "it needs a CUDA GPU");
  }
  expect_input_error("    dtypes: [float64]\n    variants: [vendor_tf32]\n", "variants",
                     "add float32 to dtypes");
  expect_input_error("    cpu_max_size: 0\n", "cpu_max_size", "at least 1");
  expect_input_error("    data: random\n", "data", "small_integers");
  expect_input_error("    devices: [cpu, tpu]\n", "devices", "tpu");
  expect_input_error("    variants: [tiled, fastest]\n", "variants", "fastest");
  if (!kernels::has_vendor_gemm<HostMemSpace>() && num_gpus() == 0) {
    expect_input_error("    devices: [cpu]\n    variants: [vendor]\n", "variants", "has no GEMM for cpu");
  }
}

class MatmulExperimentRun : public testing::EmulatedGpus {};

TEST_F(MatmulExperimentRun, SizesAboveCpuMaxSizeRunOnTheGpuOnly) {
  const auto plan = testing::plan_yaml(
      "experiments:\n"
      "  - name: matmul\n"
      "    sizes: [8, 40, 8]\n"
      "    cpu_max_size: 10\n"
      "    variants: [tiled]\n");
  const auto& cases = plan.experiments.at(0).cases;
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_TRUE(cases[0].device.is_cpu());
  EXPECT_EQ(cases[1].device, gpu(0));
  EXPECT_EQ(cases[2].device, gpu(0));
  EXPECT_EQ(cases[2].params.at(0).second, "40");
  EXPECT_EQ(cases[2].device_bytes, 3u * 40 * 40 * sizeof(float) + 4u * 40 * 8);
}

TEST_F(MatmulExperimentRun, TinySweepVerifiesAndFindsCrossover) {
  const auto outcome = testing::run_yaml(
      "run: {warmups: 0, repetitions: 2}\n"
      "experiments:\n"
      "  - name: matmul\n"
      "    sizes: [8, 40]\n"
      "    dtypes: [float32, float64]\n");
  ASSERT_EQ(outcome.results.size(), 16u);  // 2 dtypes x 2 variants x 2 sizes x 2 devices
  for (const auto& r : outcome.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    // The rate is the product's 2n³ flops over the median time, recomputed here from n.
    const double n = std::stod(r.spec.param("n"));
    EXPECT_DOUBLE_EQ(r.work.flops, 2 * n * n * n) << r.spec.label;
    EXPECT_DOUBLE_EQ(r.gflops, 2 * n * n * n / r.seconds.median / 1e9) << r.spec.label;
  }
  EXPECT_TRUE(outcome.all_verified);
  int crossovers = 0;
  for (const auto& f : outcome.findings) {
    if (f.name.rfind("crossover_n_", 0) != 0) continue;
    ++crossovers;
    // 8 or 40 where the gpu won; no value, and a reason, where the cpu won everywhere.
    if (f.value) {
      EXPECT_TRUE(*f.value == 8 || *f.value == 40) << f.name << " = " << *f.value;
    } else {
      EXPECT_NE(f.note.find("CPU faster at every size up to 40"), std::string::npos) << f.note;
    }
    EXPECT_FALSE(f.reliable) << "an emulated GPU is the same host";
    EXPECT_NE(f.note.find("same physical host"), std::string::npos) << f.note;
  }
  EXPECT_EQ(crossovers, 4);
  const auto has = [&](const std::string& name) {
    for (const auto& f : outcome.findings) {
      if (f.name == name) return f.value && *f.value > 0;
    }
    return false;
  };
  EXPECT_TRUE(has("peak_gflops_cpu_float64"));
  EXPECT_TRUE(has("peak_gflops_gpu_float32"));
}

TEST(MatmulExperimentNoGpu, RunsCpuOnlyAndSaysThereIsNoGpu) {
  if (kHasGpuBackend) GTEST_SKIP() << "this build has a GPU";
  // Above 256 the experiment switches to the identity check.
  const auto outcome = testing::run_yaml(
      "run: {warmups: 0, repetitions: 1, emulate_gpus: 0}\n"
      "experiments:\n"
      "  - name: matmul\n"
      "    sizes: [257]\n"
      "    variants: [tiled]\n");
  reset_emulated_gpus();
  ASSERT_EQ(outcome.results.size(), 1u);
  EXPECT_TRUE(outcome.results[0].spec.device.is_cpu());
  EXPECT_TRUE(outcome.results[0].check.passed) << outcome.results[0].check.detail;
  EXPECT_NE(outcome.results[0].check.detail.find("A(Bv)"), std::string::npos)
      << outcome.results[0].check.detail;
  bool said_no_gpu = false;
  for (const auto& f : outcome.findings) {
    if (f.name != "crossover_n_tiled_float32") continue;
    said_no_gpu = f.note.find("no GPU") != std::string::npos;
    EXPECT_FALSE(f.value) << "no GPU is no crossover, never a 0 standing in for one";
  }
  EXPECT_TRUE(said_no_gpu);
}

// The experiment on each device with every kernel it has there: every case verifies.
class MatmulOnEachDevice : public testing::OnEachDevice {};
MINIGPU_ON_EACH_DEVICE(MatmulOnEachDevice);

TEST_P(MatmulOnEachDevice, EveryVariantVerifies) {
  const std::string variants =
      kernels::has_vendor_gemm(device()) ? "[reference, tiled, vendor]" : "[reference, tiled]";
  const auto outcome = testing::run_yaml(
      "run: {warmups: 0, repetitions: 1}\n"
      "experiments:\n"
      "  - name: matmul\n"
      "    sizes: [7, 65, 300]\n"
      "    dtypes: [float32, float64]\n"
      "    devices: [" +
      std::string(device().is_cpu() ? "cpu" : "gpu") +
      "]\n"
      "    variants: " +
      variants + "\n");
  ASSERT_EQ(outcome.results.size(), 2u * 3u * (kernels::has_vendor_gemm(device()) ? 3u : 2u));
  for (const auto& r : outcome.results) {
    EXPECT_EQ(r.spec.device, device());
    EXPECT_TRUE(r.check.passed) << r.spec.label << " on " << describe(r.spec.device) << ": "
                                << r.check.detail;
  }
}

// `data: uniform`: float and double multiply values in [0, 1), as measured data and torch.rand,
// and pass only within their own type's rounding (an exact check would fail them).
TEST_P(MatmulOnEachDevice, UniformDataVerifiesWithinItsRounding) {
  const auto outcome = testing::run_yaml(
      "run: {warmups: 0, repetitions: 1}\n"
      "experiments:\n"
      "  - name: matmul\n"
      "    sizes: [7, 300]\n"
      "    dtypes: [float32, float64]\n"
      "    data: uniform\n"
      "    devices: [" +
      std::string(device().is_cpu() ? "cpu" : "gpu") +
      "]\n"
      "    variants: [reference, tiled]\n");
  ASSERT_EQ(outcome.results.size(), 2u * 2u * 2u);
  for (const auto& r : outcome.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    EXPECT_EQ(r.check.detail.rfind("max|C-AB|/(1+|AB|) on 8 rows", 0), 0u) << r.check.detail;
    EXPECT_EQ(r.spec.label.substr(r.spec.label.size() - 8), " uniform") << r.spec.label;
    const auto data = std::find_if(r.spec.params.begin(), r.spec.params.end(),
                                   [](const auto& p) { return p.first == "data"; });
    ASSERT_NE(data, r.spec.params.end()) << r.spec.label;
    EXPECT_EQ(data->second, "uniform");
  }
}
}  // namespace
}  // namespace minigpu
