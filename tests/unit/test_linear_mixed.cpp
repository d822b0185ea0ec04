// The linear experiment in mixed precision: bfloat16 and float16 data with float master weights.
// The forward product rounds the weights to the data's type; training follows the host's SGD,
// which rounds the same way; a run lists training cases only, on the native kernels, and a
// residual gap excuses no more than it should.
#include "core/low_precision.hpp"
#include "experiment_harness.hpp"
#include "ops/linear_check.hpp"
#include "ops/linear_sgd.hpp"
#include "test_support.hpp"

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace minigpu {
namespace {

using HostView = Kokkos::View<float*, HostMemSpace>;

template <class T>
Kokkos::View<T*, HostMemSpace> stored(const std::vector<float>& values, const std::string& label) {
  Kokkos::View<T*, HostMemSpace> v(label, values.size());
  for (std::size_t i = 0; i < values.size(); ++i) v(i) = T(values[i]);
  return v;
}

// w = 1 + 2^-9 is a float but no bfloat16 (7 mantissa bits): the forward product must see 1.
// The data are exact in both 16-bit types, so the only rounding is the weights'.
TEST(LinearMixed, ForwardProductRoundsTheWeightsToTheDataType) {
  const float w0 = 1.0f + std::ldexp(1.0f, -9), w1 = -0.5f;
  const std::vector<float> x = {1, 2, -4, 0.5}, y = {0.25, -1};
  HostView w("w", 2), b("b", 1), err("err", 2);
  w(0) = w0;
  w(1) = w1;
  b(0) = 0.125f;
  kernels::linear_residual(err, stored<bfloat16>(x, "x"), stored<bfloat16>(y, "y"), w, b, 2, 2);
  Kokkos::fence();
  EXPECT_EQ(err(0), 1 * 1.0f + 2 * w1 + 0.125f - 0.25f) << "bfloat16 rounds 1 + 2^-9 to 1";
  EXPECT_EQ(err(1), -4 * 1.0f + 0.5f * w1 + 0.125f + 1) << "bfloat16 rounds 1 + 2^-9 to 1";
  // float16 keeps 10 mantissa bits: the same weight passes unchanged.
  kernels::linear_residual(err, stored<float16>(x, "x"), stored<float16>(y, "y"), w, b, 2, 2);
  Kokkos::fence();
  EXPECT_EQ(err(0), 1 * w0 + 2 * w1 + 0.125f - 0.25f);
}

// Trained on the host from 16-bit data, the parameters end within 8u of the host's rounding SGD
// in double (a wrong gradient or update is off by O(1)); the rounding itself is checked exactly
// above, since its effect on trained weights (about u) hides inside that bound.
template <class T>
void expect_training_follows_the_rounding_reference() {
  const RegressionData<T> data = chapter_regression_data<T>(2048, 8);
  SgdOptions o;
  o.batch_size = 64;
  o.epochs = 3;
  o.lr = 0.2;
  o.kernel = GemmKernel::native;
  Linear<float> net(8, cpu());
  SgdTrainer<T, HostMemSpace> trainer(net, data, o);
  trainer.train();
  Kokkos::fence();
  const SgdReference ref = reference_sgd(data, o);
  const std::vector<float> w = net.weight_values();
  const double u = unit_roundoff(dtype_of<T>::value);
  double err = std::abs(net.bias_value() - ref.b);
  for (std::size_t j = 0; j < w.size(); ++j)
    err = std::max(err, std::abs(w[j] - ref.w[j]) / std::max(1.0, std::abs(ref.w[j])));
  EXPECT_LE(err, 8 * u) << to_string(dtype_of<T>::value);
  const auto& losses = trainer.losses();
  EXPECT_LT(losses(losses.extent(0) - 1), 1e-2 * losses(0)) << "training converged";
}

TEST(LinearMixed, TrainingFollowsTheHostsRoundingSgdInBfloat16) {
  expect_training_follows_the_rounding_reference<bfloat16>();
}
TEST(LinearMixed, TrainingFollowsTheHostsRoundingSgdInFloat16) {
  expect_training_follows_the_rounding_reference<float16>();
}

TEST(LinearMixed, ResidualGapExcusesOnlyWhatItBounds) {
  // One step, reference loss 1: a gap D allows sqrt(2)·D + D²/2 and no more.
  SgdReference ref{{0.0}, 0.0, {1.0}};
  const double gap = 0.01, allowed = std::sqrt(2.0) * gap + gap * gap / 2;
  std::vector<double> host = {1.0 + 0.999 * allowed};
  EXPECT_EQ(compare_with_reference<double>({0.0}, 0.0, host.data(), host, 1, ref, gap).losses, 0.0);
  host = {1.0 + allowed + 0.1};
  EXPECT_NEAR(compare_with_reference<double>({0.0}, 0.0, host.data(), host, 1, ref, gap).losses,
              0.1 / (1 + 1e-4), 1e-12);
  EXPECT_NEAR(compare_with_reference<double>({0.0}, 0.0, host.data(), host, 1, ref).losses,
              (allowed + 0.1) / (1 + 1e-4), 1e-12)
      << "no gap: the whole difference counts";
}

std::string mixed_input(const std::string& extra) {
  return "run: {warmups: 0, repetitions: 1}\n"
         "experiments:\n"
         "  - name: linear\n"
         "    samples: 512\n    batch_size: 32\n    epochs: 2\n    lr: 0.5\n" +
         extra;
}

// On each device: the GPU command (scripts/gpu/gpu_check.sh) runs this on GPU memory.
class LinearMixedRun : public testing::OnEachDevice {};
MINIGPU_ON_EACH_DEVICE(LinearMixedRun);

TEST_P(LinearMixedRun, SixteenBitDataTrainsOnTheNativeKernelsAndVerifies) {
  const RunOutcome out =
      testing::run_yaml(mixed_input("    dtypes: [float32, bfloat16, float16]\n" + device_key()));
  ASSERT_EQ(out.results.size(), 13u) << "float32: the rules and four trainings; 16-bit: four trainings each";
  EXPECT_TRUE(out.all_verified);
  int sixteen = 0;
  std::map<DType, double> error;  // the trained parameters against float64's unrounded SGD
  for (const auto& r : out.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    EXPECT_EQ(r.spec.device, device());
    if (r.spec.param("rule") == "train") {
      ASSERT_TRUE(r.check.error) << r.spec.label;
      error[r.spec.dtype] = r.check.error->max_abs_rel;
    }
    if (!is_low_precision(r.spec.dtype)) continue;
    ++sixteen;
    EXPECT_EQ(r.spec.param("rule"), "train");
    EXPECT_EQ(r.spec.param("kernel"), "native");
    EXPECT_NE(r.spec.param("kernel_choice").find("auto→native"), std::string::npos)
        << r.spec.param("kernel_choice");
    // in = 8, 512 samples, 2 epochs of 16 batches: 2-byte data per batch copy, 4-byte losses.
    const double copies = r.spec.param("data") == "per_batch_copy" ? 2 * 512.0 * 9 * 2 : 0;
    EXPECT_DOUBLE_EQ(r.work.bytes, copies + 32 * 4.0) << r.spec.label;
    EXPECT_DOUBLE_EQ(r.work.flops, 2 * 512.0 * 37 + 32 * 2.0 * 9) << r.spec.label;
  }
  EXPECT_EQ(sixteen, 8);
  // The precision's cost, in the storage types' order (bfloat16 2^-8 > float16 2^-11 > float32 2^-24).
  EXPECT_LE(error[DType::bf16], 8 * unit_roundoff(DType::bf16));
  EXPECT_GT(error[DType::bf16], error[DType::f16]);
  EXPECT_GT(error[DType::f16], error[DType::f32]);
}

TEST(LinearMixedConfig, VendorIsRefusedForSixteenBitData) {
  testing::expect_key_error("linear",
                            "    device: cpu\n    kernel: vendor\n    dtypes: [float32, bfloat16]\n",
                            "kernel", "16-bit data trains with the native kernels");
}

}  // namespace
}  // namespace minigpu
