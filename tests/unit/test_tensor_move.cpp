// copy_to vs to, and the same-device rule, on every device: nothing crosses devices implicitly.
#include "ops/tensor_factory.hpp"
#include "ops/tensor_ops.hpp"
#include "test_support.hpp"

namespace minigpu {
namespace {

class TensorMove : public testing::OnEachDevice {};
MINIGPU_ON_EACH_DEVICE(TensorMove);

TEST_P(TensorMove, CopyToAlwaysAllocates) {
  const Device d = device();
  const auto x = arange<float>(0, 6, 1, d);
  const auto same = x.copy_to(d);
  EXPECT_FALSE(same.shares_storage_with(x));
  EXPECT_EQ(same.to_vector(), x.to_vector());
  const auto host = x.copy_to(cpu());
  EXPECT_EQ(host.device(), cpu());
  EXPECT_EQ(host.to_vector(), x.to_vector());
  EXPECT_FALSE(host.shares_storage_with(x));
  const auto back = host.copy_to(d);
  EXPECT_EQ(back.device(), d);
  EXPECT_EQ(back.to_vector(), x.to_vector());
}

TEST_P(TensorMove, ToSharesStorageOnlyWhenAlreadyThere) {
  const Device d = device();
  const auto x = ones<double>({2, 3}, d);
  EXPECT_TRUE(x.to(d).shares_storage_with(x));
  const auto copied = x.to(cpu());
  EXPECT_EQ(copied.shares_storage_with(x), d == cpu()) << "to(cpu) moves a GPU tensor and keeps a cpu one";
  EXPECT_EQ(copied.device(), cpu());
  EXPECT_EQ(copied.to_vector(), x.to_vector());
}

TEST_P(TensorMove, WritesThroughSharedStorageAreSeen) {
  // A shared handle sees the other's writes; a copy does not.
  const Device d = device();
  auto x = zeros<float>({4}, d);
  const auto alias = x.to(d);
  const auto copy = x.copy_to(d);
  with_views(
      d, [](const auto& v) { Kokkos::deep_copy(v, 7.0f); }, x);
  EXPECT_EQ(alias.to_vector(), std::vector<float>(4, 7.0f));
  EXPECT_EQ(copy.to_vector(), std::vector<float>(4, 0.0f));
}

TEST_P(TensorMove, ViewOfTheWrongMemorySpaceIsAnError) {
  const Device d = device();
  const auto x = zeros<float>({4}, d);
  if (uses_host_memory(d)) {
    EXPECT_EQ(x.view<HostMemSpace>().extent(0), 4u);
  } else {
    EXPECT_EQ(x.view<GpuMemSpace>().extent(0), 4u);
    EXPECT_THROW((void)x.view<HostMemSpace>(), std::logic_error) << "a GPU tensor has no host storage";
  }
  EXPECT_THROW((void)Tensor<float>().view<HostMemSpace>(), std::logic_error) << "an empty tensor has no View";
}

TEST_P(TensorMove, MixedDevicesThrowNamingBoth) {
  const Device d = device();
  if (d == cpu()) GTEST_SKIP() << "one device: nothing to mix";
  const auto x = ones<float>({2, 3}, d);
  const auto y = ones<float>({2, 3}, cpu());
  try {
    (void)(x + y);
    FAIL() << "adding a " << to_string(d) << " tensor to a cpu tensor must throw";
  } catch (const DeviceMismatchError& e) {
    const std::string message = e.what();
    EXPECT_EQ(
        message.rfind("expected all tensors to be on the same device, but found at least two devices, " +
                          to_string(d) + " and cpu",
                      0),
        0u)
        << message;
  }
  EXPECT_THROW((void)matmul(x, ones<float>({3, 2}, cpu())), DeviceMismatchError);
  EXPECT_THROW((void)pow(x, y), DeviceMismatchError);
  EXPECT_NO_THROW((void)(x + y.to(d))) << "after an explicit move the rule holds";
}

TEST_P(TensorMove, ResultsLiveOnTheOperandsDevice) {
  const Device d = device();
  const auto x = rand<double>({3, 3}, d, 1);
  EXPECT_EQ((x + x).device(), d);
  EXPECT_EQ((x * 2.0).device(), d);
  EXPECT_EQ(exp(x).device(), d);
  EXPECT_EQ(sum(x).device(), d);
  EXPECT_EQ(frobenius_norm(x).device(), d);
  EXPECT_EQ(matmul(x, x).device(), d);
}

using TensorMoveEmulated = testing::EmulatedGpus;

TEST_F(TensorMoveEmulated, TwoEmulatedGpusAreDistinctDevices) {
  const auto x = ones<float>({2, 3}, gpu(0));
  const auto z = ones<float>({2, 3}, gpu(1));
  EXPECT_THROW((void)(x * z), DeviceMismatchError) << "two emulated GPUs are distinct devices";
  const auto other = x.copy_to(gpu(1));
  EXPECT_EQ(other.device(), gpu(1));
  EXPECT_FALSE(other.shares_storage_with(x));
}

}  // namespace
}  // namespace minigpu
