// The logging experiment's kernels against host loops, its input errors, and the experiment
// end to end at a tiny size.
#include "config/config_node.hpp"
#include "core/backend.hpp"
#include "core/errors.hpp"
#include "engine/registry.hpp"
#include "experiment_harness.hpp"
#include "kernels/matmul_reference.hpp"
#include "kernels/matmul_vendor.hpp"
#include "kernels/reduce.hpp"
#include "kernels/scale.hpp"
#include "kokkos_events.hpp"
#include "ops/tensor_factory.hpp"
#include "test_support.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace minigpu {
namespace {

template <class P>
class LoggingKernels : public testing::OnEveryDevice<P> {};
TYPED_TEST_SUITE(LoggingKernels, testing::EveryDeviceAndDtype, testing::OnNames);

// One normalisation step as the experiment runs it: the norm stays on the device and the
// division reads it there, at an offset inside a log.
TYPED_TEST(LoggingKernels, NormaliseByDeviceNormMatchesHost) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  const auto y = rand<T>({5, 7}, d, 21, T(-3), T(3));
  Tensor<T> x({5, 7}, d, "test::X");
  Tensor<T> log({4}, d, "test::log");
  with_views(
      d,
      [&](const auto& xv, const auto& yv, const auto& lv) {
        kernels::frobenius_norm_into(yv, Kokkos::subview(lv, 2));
        kernels::divide_by_device_scalar(xv, yv, Kokkos::subview(lv, 2));
      },
      x, y, log);
  const auto yh = y.to_vector();
  double sq = 0;
  for (T v : yh) sq += static_cast<double>(v) * v;
  const double norm = std::sqrt(sq);
  const auto logged = log.to_vector();
  EXPECT_NEAR(logged[2], norm, 1e-5 * norm) << describe(d);
  EXPECT_EQ(logged[0], T(0));
  EXPECT_EQ(logged[3], T(0));
  const auto xh = x.to_vector();
  for (std::size_t i = 0; i < xh.size(); ++i) EXPECT_EQ(xh[i], yh[i] / logged[2]) << i;
}

// What sync_each_step does each step: the host reads an entry a reduction wrote on the device,
// after that reduction, wherever the entry lives (read in place in host memory, copied from a GPU).
TYPED_TEST(LoggingKernels, ReadOnHostGivesTheEntryTheReductionWrote) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  const auto y = rand<T>({6, 5}, d, 23, T(-2), T(2));
  Tensor<T> log({3}, d, "test::log");
  double read = 0;
  with_views(
      d,
      [&](const auto& yv, const auto& lv) {
        kernels::sum_into(yv, Kokkos::subview(lv, 1));
        read = static_cast<double>(read_on_host(Kokkos::subview(lv, 1)));
      },
      y, log);
  double sum = 0, sum_abs = 0;
  for (T v : y.to_vector()) sum += static_cast<double>(v), sum_abs += std::abs(static_cast<double>(v));
  // A recursive sum of 30 terms: at most 29 roundings of at most eps/2 of the partial sums.
  const double eps = std::numeric_limits<T>::epsilon();
  EXPECT_NEAR(read, sum, 30 * eps * sum_abs) << describe(d);
  EXPECT_EQ(log.to_vector()[1], static_cast<T>(read)) << describe(d);
}

// A step costs its GEMM and one reduction, nothing more: observed through Kokkos's tool hooks
// (the vendor GEMM is a region; the reduction writes the log entry that scales the next GEMM).
TEST(LoggingStep, OneGemmAndOneReductionPerStepNoAllocationNoCopy) {
  const std::int64_t steps = 7;
  std::map<bool, long> fences_in;  // fences while each mode ran, by sync
  for (const char* mode : {"device_log", "sync_each_step"}) {
    auto experiment = ExperimentRegistry::find("logging")->make();
    YAML::Node yaml = YAML::Load("{n: 9, steps: 7, device: cpu, dtypes: [float64], kernel: vendor}");
    ConfigNode node(yaml, "test", "logging");
    experiment->configure(node, RunContext::on(comm::Communicator::world()));
    for (const CaseSpec& spec : experiment->cases()) {
      if (spec.param("mode") == mode) experiment->setup(spec);
    }
    testing::KokkosEventCounter counter("gemm::multiply");
    experiment->run_once();
    const long fences = testing::KokkosEventCounter::fences();
    Kokkos::fence();
    const bool sync = std::string(mode) == "sync_each_step";
    EXPECT_EQ(testing::KokkosEventCounter::named(), steps) << mode << ": one GEMM per step";
    EXPECT_EQ(testing::KokkosEventCounter::parallel_reduces(), steps) << mode << ": one reduction per step";
    EXPECT_EQ(testing::KokkosEventCounter::parallel_fors(), 0) << mode << ": no other kernel";
    EXPECT_EQ(testing::KokkosEventCounter::allocations(), 0) << mode << ": nothing allocated while running";
    // In host memory a sync reads the entry in place after a fence (read_on_host): no copy.
    EXPECT_EQ(testing::KokkosEventCounter::deep_copies(), sync ? 0 : 1)
        << mode << ": the log is read in place each step, or copied once";
    fences_in[sync] = fences;
    EXPECT_TRUE(experiment->verify().passed) << mode;
  }
#if KOKKOS_VERSION >= 40000  // Kokkos 3.4's Serial fences without telling the tools
  // The vendor GEMM fences before the BLAS reads host memory, in both modes; a sync adds its own.
  EXPECT_GE(fences_in[true] - fences_in[false], steps) << "sync_each_step: the host waits each step";
#endif
}

// The host reference the experiment's logs are checked against, on cases worked out by hand.
TEST(LoggingReference, PowerIterationNormsAsWorkedOutHere) {
  // n = 1: Y_0 = 2·3 = 6, X_1 = 1; then Y_t = 2 and X stays 1.
  const float a1[] = {2}, x1[] = {3};
  EXPECT_EQ(kernels::power_iteration_norms(a1, x1, 1, 3), (std::vector<double>{6, 2, 2}));
  // A = [[1, 1], [0, 1]], X_0 = I: Y_0 = A, ‖A‖ = √3; Y_1 = A·A/√3 = [[1, 2], [0, 1]]/√3,
  // whose norm is √6/√3 = √2.
  const double a2[] = {1, 1, 0, 1}, x2[] = {1, 0, 0, 1};
  const std::vector<double> norms = kernels::power_iteration_norms(a2, x2, 2, 2);
  ASSERT_EQ(norms.size(), 2u);
  EXPECT_NEAR(norms[0], std::sqrt(3.0), 1e-15);
  EXPECT_NEAR(norms[1], std::sqrt(2.0), 1e-15);
  EXPECT_TRUE(kernels::power_iteration_norms(a2, x2, 2, 0).empty());
}

TEST(LoggingReference, MaxRelativeDifferenceOverTheFirstEntries) {
  const std::vector<double> x = {1, 2.2, 3, std::numeric_limits<double>::infinity()}, y = {1, 2, 4, 1};
  EXPECT_NEAR(kernels::max_rel_diff(x, y, 2), 0.1, 1e-15);  // |2.2 - 2| / 2
  EXPECT_EQ(kernels::max_rel_diff(x, y, 3), 0.25);          // |3 - 4| / 4
  EXPECT_TRUE(std::isinf(kernels::max_rel_diff(x, y, 4))) << "an infinite entry never passes";
  EXPECT_EQ(kernels::max_rel_diff(x, y, 0), 0);
}

// A row's error columns for the log, worked out by hand: x = (1, 2.2, 3) against y = (1, 2, 4).
TEST(LoggingReference, SequenceErrorsAsAProductsAreReported) {
  const std::vector<double> x = {1, 2.2, 3, std::nan("")}, y = {1, 2, 4, 1};
  const auto e = kernels::sequence_errors(x, y, 3);
  EXPECT_EQ(e.max_rel, 0.25);                                         // |3 - 4| / 4
  EXPECT_NEAR(e.error.max_abs_rel, 1.0 / (7.0 / 3.0), 1e-15);         // max |x - y| / mean |y|
  EXPECT_NEAR(e.error.frobenius_rel, std::sqrt(1.04 / 21.0), 1e-15);  // ‖(0, 0.2, 1)‖ / ‖(1, 2, 4)‖
  EXPECT_TRUE(std::isinf(kernels::sequence_errors(x, y, 4).error.frobenius_rel)) << "NaN never passes";
}

void expect_input_error(const std::string& experiment_yaml, const std::string& key) {
  testing::expect_key_error("logging", experiment_yaml, key);
}

TEST(LoggingConfig, BadValuesNameTheirKey) {
  expect_input_error("    n: 0\n", "n");
  expect_input_error("    n: ten\n", "n");
  expect_input_error("    steps: -5\n", "steps");
  expect_input_error("    dtypes: [float8]\n", "dtypes");
  // No vendor GEMM anywhere here takes float16 on the host: asked for by name, it is refused.
  testing::expect_key_error("logging", "    device: cpu\n    kernel: vendor\n    dtypes: [float16]\n",
                            "kernel", "vendor has no float16 GEMM for cpu");
  expect_input_error("    stride: 2\n", "stride");
}

class LoggingExperimentRun : public testing::OnEachDevice {};
MINIGPU_ON_EACH_DEVICE(LoggingExperimentRun);

TEST_P(LoggingExperimentRun, BothModesVerifyAgreeAndReportTheRatio) {
  const auto outcome = testing::run_yaml(
      "run: {warmups: 1, repetitions: 3}\n"
      "experiments:\n"
      "  - name: logging\n"
      "    n: 16\n"
      "    steps: 50\n"
      "    dtypes: [float32, float64]\n" +
      device_key());
  ASSERT_EQ(outcome.results.size(), 4u);
  for (const auto& r : outcome.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    EXPECT_EQ(r.spec.device, device());
    EXPECT_DOUBLE_EQ(r.work.flops, 50.0 * (2.0 * 16 * 16 * 16 + 3.0 * 16 * 16));
  }
  EXPECT_TRUE(outcome.all_verified);
  // The device_log case runs second and is checked against the sync_each_step log as well.
  EXPECT_EQ(outcome.results[1].spec.label, "device_log " + outcome.results[1].spec.param("kernel"));
  EXPECT_NE(outcome.results[1].check.detail.find("vs sync_each_step"), std::string::npos)
      << outcome.results[1].check.detail;
  EXPECT_NE(outcome.results[0].check.detail.find("first 50 steps vs host"), std::string::npos)
      << outcome.results[0].check.detail;
  int ratios = 0;
  for (const auto& f : outcome.findings) {
    if (f.name.rfind("sync_over_device_log_", 0) != 0) continue;
    // The ratio of the two cases' medians, recomputed from the rows (float32 first).
    const std::size_t first = ratios == 0 ? 0 : 2;
    const double want = outcome.results[first].seconds.median / outcome.results[first + 1].seconds.median;
    ASSERT_TRUE(f.value) << f.note;
    EXPECT_DOUBLE_EQ(*f.value, want) << f.note;
    EXPECT_NE(f.note.find("50 steps"), std::string::npos) << f.note;
    ++ratios;
  }
  EXPECT_EQ(ratios, 2);
}

// Mixed precision: bfloat16 and float16 storage with float sums and a float log, each row within
// its precision's bound and with its error against the host's double recurrence, the errors in
// the order of the storage types' roundoff (bfloat16 2^-8 > float16 2^-11 > float32 2^-24), so
// a "16-bit" case that kept float (or a sum that ran in 16 bits) shows. `auto` picks per precision.
TEST_P(LoggingExperimentRun, SixteenBitStorageVerifiesWithItsErrorAndPicksItsKernel) {
  const auto outcome = testing::run_yaml(
      "run: {warmups: 0, repetitions: 2}\n"
      "experiments:\n"
      "  - name: logging\n"
      "    n: 48\n"
      "    steps: 40\n"
      "    dtypes: [float32, bfloat16, float16]\n" +
      device_key());
  ASSERT_EQ(outcome.results.size(), 6u);
  std::map<DType, double> error;
  for (const auto& r : outcome.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    ASSERT_TRUE(r.check.error) << r.spec.label;
    error[r.spec.dtype] = std::max(error[r.spec.dtype], r.check.error->max_abs_rel);
    const bool vendor_serves = kernels::has_vendor_gemm(device(), r.spec.dtype);
    const std::string why = r.spec.param("kernel_choice");
    if (!vendor_serves) {
      EXPECT_EQ(r.spec.param("kernel"), "native") << r.spec.label;
      EXPECT_NE(why.find("no vendor " + to_string(r.spec.dtype) + " GEMM"), std::string::npos) << why;
    } else {
      EXPECT_NE(why.find(", " + to_string(r.spec.dtype) + ", measured"), std::string::npos) << why;
    }
  }
  EXPECT_LE(error[DType::bf16], 8 * unit_roundoff(DType::bf16));
  EXPECT_GT(error[DType::bf16], error[DType::f16]);
  EXPECT_GT(error[DType::f16], error[DType::f32]);
}

// The chapter's claim where the backend makes it true, at its size (exercise 3: a 100x100
// matmul and a norm per step): on a GPU every host sync waits for the queue and a round
// trip, which a device-side log never does (1.84x to 1.98x measured on an H100).
TEST_P(LoggingExperimentRun, HostSyncEachStepCostsMoreOnAGpu) {
  if (uses_host_memory(device())) GTEST_SKIP() << describe(device()) << " runs kernels synchronously";
  const auto outcome = testing::run_yaml(
      "run: {warmups: 1, repetitions: 5}\n"
      "experiments:\n"
      "  - name: logging\n"
      "    n: 100\n"
      "    steps: 300\n"
      "    dtypes: [float32, float64]\n" +
      device_key());
  EXPECT_TRUE(outcome.all_verified);
  int ratios = 0;
  for (const auto& f : outcome.findings) {
    if (f.name.rfind("sync_over_device_log_", 0) != 0) continue;
    ASSERT_TRUE(f.value) << f.note;
    EXPECT_GT(*f.value, 1.2) << f.note;
    ++ratios;
  }
  EXPECT_EQ(ratios, 2);
}

}  // namespace
}  // namespace minigpu
