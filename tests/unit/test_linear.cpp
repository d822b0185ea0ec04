// The linear experiment: Linear(in, 1) forward pass, SGD kernels and training against host
// loops on every device, configuration errors, and a tiny run through the runner on each device.
#include "core/errors.hpp"
#include "experiment_harness.hpp"
#include "ops/linear_check.hpp"
#include "ops/linear_sgd.hpp"
#include "ops/tensor_factory.hpp"
#include "test_support.hpp"

#include <cmath>
#include <map>
#include <string>

namespace minigpu {
namespace {

// T a template parameter, not a member alias, so test bodies may name their own T.
template <class P, class T>
class LinearLayerFixture : public testing::OnEveryDevice<P> {
 protected:
  static T tolerance() { return std::is_same_v<T, float> ? T(1e-5) : T(1e-12); }
  // x is 4×3, row-major.
  std::vector<T> x_ = {0.5, -1, 2, 1.5, 0.25, -0.75, -2, 1, 0.125, 3, -0.5, 1};
  std::vector<T> w_ = {2, T(-3.4), 0.5};
  T b_ = T(4.2);
  std::vector<T> host_forward() const {
    std::vector<T> out(4);
    for (int i = 0; i < 4; ++i) {
      double acc = b_;
      for (int j = 0; j < 3; ++j) acc += double(x_[i * 3 + j]) * double(w_[j]);
      out[i] = static_cast<T>(acc);
    }
    return out;
  }
};
// GoogleTest takes a one-parameter fixture template; clang (hipcc) does not match a template
// with a defaulted second parameter to it, as GCC does.
template <class P>
class LinearLayer : public LinearLayerFixture<P, typename P::value_type> {};
TYPED_TEST_SUITE(LinearLayer, testing::EveryDeviceAndDtype, testing::OnNames);

TYPED_TEST(LinearLayer, ForwardMatchesHostOnItsDevice) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  Linear<T> net(3, d);
  net.set_weight(this->w_);
  net.set_bias(this->b_);
  const Tensor<T> out = net.forward(from_vector<T>(this->x_, {4, 3}, d));
  EXPECT_EQ(out.device(), d);
  EXPECT_EQ(net.weight().device(), d);
  EXPECT_EQ(net.bias().device(), d);
  EXPECT_EQ(out.shape(), (Shape{4, 1}));
  const auto got = out.to_vector(), want = this->host_forward();
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[i], want[i], this->tolerance() * (1 + std::abs(want[i]))) << i;
}

TYPED_TEST(LinearLayer, InputOnAnotherDeviceIsAnError) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  Linear<T> net(3, d);
  if (d != cpu()) {
    EXPECT_THROW(net.forward(from_vector<T>(this->x_, {4, 3}, cpu())), DeviceMismatchError);
  }
  EXPECT_THROW(net.forward(from_vector<T>(this->x_, {3, 4}, d)), ShapeError);
}

TYPED_TEST(LinearLayer, ParametersRoundTripThroughTheHostInPlace) {
  using T = typename TypeParam::value_type;
  Linear<T> net(3, this->device());
  EXPECT_EQ(net.weight_values(), std::vector<T>(3, T(0))) << "a new layer starts at zero";
  const Tensor<T> storage = net.weight();
  net.set_weight(this->w_);
  net.set_bias(this->b_);
  EXPECT_EQ(net.weight_values(), this->w_);
  EXPECT_EQ(net.bias_value(), this->b_);
  EXPECT_TRUE(net.weight().shares_storage_with(storage)) << "set_weight must write into the existing storage";
  EXPECT_THROW(net.set_weight({1, 2}), ShapeError);
}

TYPED_TEST(LinearLayer, RoundTripCheckPassesOnlyForTheValuesHeldAndRestoresThem) {
  using T = typename TypeParam::value_type;
  Linear<T> net(3, this->device());
  net.set_weight(this->w_);
  net.set_bias(this->b_);
  EXPECT_TRUE(parameters_round_trip(net, this->w_, this->b_));
  EXPECT_EQ(net.weight_values(), this->w_) << "the layer ends as it began";
  EXPECT_EQ(net.bias_value(), this->b_);
  Linear<T> fresh(3, this->device());  // zeros: not the values the check is told it holds
  EXPECT_FALSE(parameters_round_trip(fresh, this->w_, this->b_));
  EXPECT_FALSE(parameters_round_trip(net, this->w_, T(1)));
}

TYPED_TEST(LinearLayer, GradientKernelsMatchHost) {
  using T = typename TypeParam::value_type;
  const std::vector<T> y = {1, -2, 0.5, 3};
  const Device d = this->device();
  Linear<T> net(3, d);
  net.set_weight(this->w_);
  net.set_bias(this->b_);
  const auto x = from_vector<T>(this->x_, {4, 3}, d), yt = from_vector<T>(y, {4}, d);
  const auto err = zeros<T>({4}, d), grad = zeros<T>({5}, d), log = zeros<T>({2}, d);
  with_views(
      d,
      [&](const auto& e, const auto& g, const auto& l, const auto& xv, const auto& yv, const auto& w,
          const auto& b) {
        kernels::linear_residual(e, xv, yv, w, b, 4, 3);
        kernels::mse_gradient(g, xv, e, 4, 3);
        kernels::sgd_step(w, b, g, l, 1, T(0.5), T(0.5), 3);
      },
      err, grad, log, x, yt, net.weight(), net.bias());
  // Host: err = Xw + b - y, grad_w = Xᵀerr/4, grad_b = mean(err), loss = Σerr²/8.
  std::vector<double> e(4), gw(3, 0.0);
  double gb = 0, loss = 0;
  const auto fwd = this->host_forward();
  for (int i = 0; i < 4; ++i) {
    e[i] = double(fwd[i]) - y[i];
    gb += e[i] / 4;
    loss += e[i] * e[i] / 8;
    for (int j = 0; j < 3; ++j) gw[j] += this->x_[i * 3 + j] * e[i] / 4;
  }
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-12;
  const auto g = grad.to_vector(), w = net.weight_values();
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(g[j], gw[j], tol * (1 + std::abs(gw[j]))) << "grad_w " << j;
    EXPECT_NEAR(w[j], this->w_[j] - 0.5 * gw[j], tol * 10) << "updated w " << j;
  }
  EXPECT_NEAR(g[3], gb, tol * (1 + std::abs(gb)));
  EXPECT_NEAR(g[4], loss, tol * (1 + loss));
  EXPECT_NEAR(net.bias_value(), this->b_ - 0.5 * gb, tol * 10);
  EXPECT_EQ(log.to_vector(), (std::vector<T>{0, g[4]})) << "the loss goes to log(step)";
}

/// Trains a fresh layer on `d` and returns {final weights + bias, per-batch losses}.
template <class T, class Space>
std::pair<std::vector<T>, std::vector<T>> train(Device d, const RegressionData<T>& data, SgdOptions o) {
  Linear<T> net(data.in, d);
  SgdTrainer<T, Space> trainer(net, data, o);
  trainer.train();
  trainer.train();  // a second run must start again from the same initialisation
  Kokkos::fence();
  std::vector<T> params = net.weight_values();
  params.push_back(net.bias_value());
  const auto& l = trainer.losses();
  EXPECT_EQ(trainer.device_losses(), std::vector<T>(l.data(), l.data() + l.extent(0)));
  return {params, std::vector<T>(l.data(), l.data() + l.extent(0))};
}

TYPED_TEST(LinearLayer, TrainingConvergesTheSameWayInEveryMode) {
  using T = typename TypeParam::value_type;
  const std::vector<T> w_true = {2, T(-3.4), 1, 0.5};
  const auto data = make_regression_data<T>(500, w_true, T(4.2), T(0.01), 11);  // 500 = 15·32 + 20
  const Device d = this->device();
  for (GemmKernel kernel : {GemmKernel::vendor, GemmKernel::native}) {
    std::vector<std::vector<T>> params, losses;
    for (bool copy : {true, false}) {
      for (bool sync : {true, false}) {
        SgdOptions o;
        o.batch_size = 32;
        o.epochs = 3;
        o.lr = 0.5;
        o.copy_batches = copy;
        o.sync_loss = sync;
        o.kernel = kernel;
        auto [p, l] =
            uses_host_memory(d) ? train<T, HostMemSpace>(d, data, o) : train<T, GpuMemSpace>(d, data, o);
        params.push_back(p);
        losses.push_back(l);
      }
    }
    ASSERT_EQ(losses[0].size(), 48u);
    EXPECT_LT(losses[0].back(), losses[0].front() * 1e-3);
    for (std::size_t j = 0; j < w_true.size(); ++j) EXPECT_NEAR(params[0][j], w_true[j], 0.05) << j;
    EXPECT_NEAR(params[0].back(), 4.2, 0.05);
    for (std::size_t m = 1; m < 4; ++m) {
      EXPECT_EQ(params[m], params[0]) << "mode " << m << " on " << d << " with " << to_string(kernel);
      EXPECT_EQ(losses[m], losses[0]) << "mode " << m << " on " << d << " with " << to_string(kernel);
    }
  }
}

std::string tiny_input(const std::string& extra) {
  return "run: {warmups: 0, repetitions: 1}\n"
         "experiments:\n"
         "  - name: linear\n"
         "    samples: 512\n    batch_size: 32\n    epochs: 2\n    lr: 0.5\n" +
         extra;
}

void expect_input_error(const std::string& extra, const std::string& key) {
  testing::expect_key_error("linear", extra, key);
}

TEST(LinearReference, LossAndOneStepAsWorkedOutHere) {
  // Three samples, two features, one batch: the reference's loss and update against the
  // formulas L = sum e^2 / (2n), w -= lr * X^T e / n, b -= lr * mean(e), with e = X w + b - y.
  const RegressionData<double> data = make_regression_data<double>(3, {1.5, -2.0}, 0.25, 0.0, 99);
  SgdOptions o;
  o.batch_size = 3;
  o.epochs = 1;
  o.lr = 0;
  const SgdReference still = reference_sgd(data, o);  // lr 0: w stays where it starts, b at 0
  ASSERT_EQ(still.w.size(), 2u);
  ASSERT_EQ(still.losses.size(), 1u);
  std::vector<double> e(3);
  double loss = 0;
  for (int i = 0; i < 3; ++i) {
    e[i] = data.x(2 * i) * still.w[0] + data.x(2 * i + 1) * still.w[1] - data.y(i);
    loss += e[i] * e[i] / 6.0;
  }
  EXPECT_NEAR(still.losses[0], loss, 1e-12);
  EXPECT_EQ(still.b, 0.0);
  o.lr = 0.5;
  const SgdReference moved = reference_sgd(data, o);
  for (int j = 0; j < 2; ++j) {
    double g = 0;
    for (int i = 0; i < 3; ++i) g += data.x(2 * i + j) * e[i] / 3.0;
    EXPECT_NEAR(moved.w[j], still.w[j] - 0.5 * g, 1e-12) << "w[" << j << "]";
  }
  EXPECT_NEAR(moved.b, -0.5 * (e[0] + e[1] + e[2]) / 3.0, 1e-12);
  EXPECT_NEAR(moved.losses[0], loss, 1e-12) << "the loss is taken before the step";
}

TEST(LinearReference, ForwardErrorIsTheWorstRowAgainstTheHostsForward) {
  // x = [[1, 2], [3, 4]], w = [1, 1], b = 1: y = [4, 8]; out = [4, 9] is off by 1 in row 1.
  const std::vector<double> x = {1, 2, 3, 4}, w = {1, 1};
  EXPECT_EQ(forward_error(std::vector<double>{4, 8}, x, w, 1), 0);
  EXPECT_DOUBLE_EQ(forward_error(std::vector<double>{4, 9}, x, w, 1), 1.0 / 9);  // |9 - 8| / (1 + 8)
  EXPECT_DOUBLE_EQ(forward_error(std::vector<double>{2, 8}, x, w, 1), 2.0 / 5);  // |2 - 4| / (1 + 4)
}

TEST(LinearReference, ComparisonWithTheReferenceAsWorkedOutHere) {
  SgdReference ref;
  ref.w = {1, 2.5};
  ref.b = 2;
  ref.losses = {4, 2, 1, 0.5};
  const std::vector<double> w = {1, 2}, host = {4, 2, 1, 1};
  // |b - 2| / 2 = 0.5 beats |2 - 2.5| / 2.5 = 0.2; the last loss is off by 0.5 over 0.5 + 1e-4.
  SgdComparison c = compare_with_reference(w, 3.0, host.data(), host, 2, ref);
  EXPECT_DOUBLE_EQ(c.parameters, 0.5);
  EXPECT_DOUBLE_EQ(c.losses, 0.5 / (0.5 + 1e-4));
  EXPECT_TRUE(c.same_log);
  EXPECT_DOUBLE_EQ(c.first_mean, 3);  // epochs of two steps: (4 + 2) / 2
  EXPECT_DOUBLE_EQ(c.last_mean, 1);   // (1 + 1) / 2
  c = compare_with_reference(w, 2.0, host.data(), std::vector<double>{4, 2, 1, 2}, 4, ref);
  EXPECT_DOUBLE_EQ(c.parameters, 0.2) << "a bias within 1 of the reference: w[1] is the worst";
  EXPECT_FALSE(c.same_log) << "the host received another last loss than the device logged";
  EXPECT_DOUBLE_EQ(c.first_mean, 4);  // epochs of one step
  EXPECT_DOUBLE_EQ(c.last_mean, 1);
  c = compare_with_reference(w, 2.0, host.data(), host, 1, ref);
  EXPECT_DOUBLE_EQ(c.first_mean, 3) << "one epoch: its halves";
  EXPECT_DOUBLE_EQ(c.last_mean, 1);
}

TEST(LinearConfig, BadValuesNameTheirKey) {
  expect_input_error("    in_features: 0\n", "in_features");
  expect_input_error("    epochs: 0\n", "epochs");
  expect_input_error("    lr: -0.1\n", "lr");
  expect_input_error("    dtypes: [float8]\n", "dtypes");
  expect_input_error("    device: tpu\n", "device");
  expect_input_error("    device: gpu:7\n", "device");
  expect_input_error("    samples: 16\n    batch_size: 32\n", "batch_size");
}

class LinearRun : public testing::OnEachDevice {};
MINIGPU_ON_EACH_DEVICE(LinearRun);

TEST_P(LinearRun, TinyRunVerifiesEveryCaseOnTheDevice) {
  const RunOutcome out = testing::run_yaml(tiny_input("    dtypes: [float32, float64]\n" + device_key()));
  ASSERT_EQ(out.results.size(), 10u);
  EXPECT_TRUE(out.all_verified);
  std::map<std::string, double> median;  // "float32 per_batch_copy on_device" -> seconds
  for (const auto& r : out.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    EXPECT_EQ(r.spec.device, device());
    // in = 8 features, 512 samples, 2 epochs of 16 batches: the header's accounting.
    const bool parameters = r.spec.param("rule") == "parameters";
    EXPECT_DOUBLE_EQ(r.work.flops, parameters ? 32.0 * 17 : 2 * 512.0 * 37 + 32 * 2.0 * 9) << r.spec.label;
    median[to_string(r.spec.dtype) + " " + r.spec.param("data") + " " + r.spec.param("loss")] =
        r.seconds.median;
  }
  ASSERT_EQ(out.findings.size(), 8u);
  for (const auto& f : out.findings) {
    // name: <slow>_over_<fast>.<dtype>.<fixed key>_<fixed value>; the ratio of the two rows.
    const auto dot = f.name.find('.'), dot2 = f.name.find('.', dot + 1);
    const std::string dtype = f.name.substr(dot + 1, dot2 - dot - 1), fixed = f.name.substr(dot2 + 1);
    const bool data_varies = f.name.rfind("per_batch_copy_over", 0) == 0;
    const std::string value = fixed.substr(fixed.find('_') + 1);
    const std::string slow = data_varies ? "per_batch_copy " + value : value + " sync_each_batch";
    const std::string fast = data_varies ? "on_device " + value : value + " on_device";
    ASSERT_TRUE(median.count(dtype + " " + slow) && median.count(dtype + " " + fast)) << f.name;
    ASSERT_TRUE(f.value) << f.name;
    EXPECT_DOUBLE_EQ(*f.value, median[dtype + " " + slow] / median[dtype + " " + fast]) << f.name;
  }
}

// Verification is against the host's SGD, not against w*: training that honestly stops short
// of w* verifies and says so; training that diverges to overflow fails.
TEST(LinearRunCheck, ShortTrainingVerifiesAndSaysItStoppedShort) {
  const RunOutcome out = testing::run_yaml(
      "run: {warmups: 0, repetitions: 1}\n"
      "experiments:\n  - {name: linear, samples: 64, batch_size: 32, epochs: 1, lr: 0.01, device: cpu}\n");
  ASSERT_EQ(out.results.size(), 5u);
  for (const auto& r : out.results) EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
  EXPECT_NE(out.results.at(1).check.detail.find("stopped short of w*"), std::string::npos)
      << out.results.at(1).check.detail;
}

TEST(LinearRunCheck, DivergingTrainingFailsVerification) {
  const RunOutcome out = testing::run_yaml(
      "run: {warmups: 0, repetitions: 1}\n"
      "experiments:\n  - {name: linear, samples: 256, batch_size: 8, epochs: 10, lr: 50, device: cpu}\n");
  EXPECT_FALSE(out.all_verified);
  EXPECT_TRUE(out.results.at(0).check.passed) << "the parameters rule does not depend on training";
  EXPECT_FALSE(out.results.at(1).check.passed) << out.results.at(1).check.detail;
  EXPECT_NE(out.results.at(1).check.detail.find("diverged"), std::string::npos)
      << out.results.at(1).check.detail;
}

}  // namespace
}  // namespace minigpu
