// copy_to vs to, and the same-device rule: nothing crosses devices implicitly.
#include "ops/tensor_factory.hpp"
#include "ops/tensor_ops.hpp"
#include "test_support.hpp"

namespace minigpu {
namespace {

using TensorMove = testing::EmulatedGpus;

TEST_F(TensorMove, CopyToAlwaysAllocates) {
  const auto x = arange<float>(0, 6, 1, gpu(0));
  const auto same = x.copy_to(gpu(0));
  EXPECT_FALSE(same.shares_storage_with(x));
  EXPECT_EQ(same.to_vector(), x.to_vector());
  const auto other = x.copy_to(gpu(1));
  EXPECT_EQ(other.device(), gpu(1));
  EXPECT_EQ(other.to_vector(), x.to_vector());
  EXPECT_FALSE(other.shares_storage_with(x));
}

TEST_F(TensorMove, ToSharesStorageOnlyWhenAlreadyThere) {
  const auto x = ones<double>({2, 3}, gpu(1));
  const auto moved = x.to(gpu(1));
  EXPECT_TRUE(moved.shares_storage_with(x));
  const auto copied = x.to(cpu());
  EXPECT_FALSE(copied.shares_storage_with(x));
  EXPECT_EQ(copied.device(), cpu());
  EXPECT_EQ(copied.to_vector(), x.to_vector());
}

TEST_F(TensorMove, WritesThroughSharedStorageAreSeen) {
  // A shared handle sees the other's writes; a copy does not.
  auto x = zeros<float>({4}, gpu(0));
  const auto alias = x.to(gpu(0));
  const auto copy = x.copy_to(gpu(0));
  Kokkos::deep_copy(x.view<HostMemSpace>(), 7.0f);
  EXPECT_EQ(alias.to_vector(), std::vector<float>(4, 7.0f));
  EXPECT_EQ(copy.to_vector(), std::vector<float>(4, 0.0f));
}

TEST_F(TensorMove, MixedDevicesThrowNamingBoth) {
  const auto x = ones<float>({2, 3}, gpu(0));
  const auto y = ones<float>({2, 3}, cpu());
  try {
    (void)(x + y);
    FAIL() << "adding a gpu:0 tensor to a cpu tensor must throw";
  } catch (const DeviceMismatchError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("expected all tensors to be on the same device, but found at least two "
                            "devices, gpu:0 and cpu",
                            0),
              0u)
        << message;
  }
  const auto z = ones<float>({2, 3}, gpu(1));
  EXPECT_THROW((void)(x * z), DeviceMismatchError) << "two emulated GPUs are distinct devices";
  EXPECT_THROW((void)matmul(x, ones<float>({3, 2}, cpu())), DeviceMismatchError);
  EXPECT_THROW((void)pow(x, z), DeviceMismatchError);
  EXPECT_NO_THROW((void)(x + y.to(gpu(0)))) << "after an explicit move the rule holds";
}

TEST_F(TensorMove, ResultsLiveOnTheOperandsDevice) {
  const auto x = rand<double>({3, 3}, gpu(1), 1);
  EXPECT_EQ((x + x).device(), gpu(1));
  EXPECT_EQ((x * 2.0).device(), gpu(1));
  EXPECT_EQ(exp(x).device(), gpu(1));
  EXPECT_EQ(sum(x).device(), gpu(1));
  EXPECT_EQ(frobenius_norm(x).device(), gpu(1));
  EXPECT_EQ(matmul(x, x).device(), gpu(1));
}

}  // namespace
}  // namespace minigpu
