// The chapter's device rules: naming, availability, fallback and emulated GPUs.
#include "core/backend.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "test_support.hpp"

#include <cstdlib>
#include <sstream>
#include <unordered_set>

namespace minigpu {
namespace {

using testing::EmulatedGpus;

TEST(Device, PrintsLikeTheChapter) {
  EXPECT_EQ(to_string(cpu()), "cpu");
  EXPECT_EQ(to_string(Device(DeviceKind::gpu, 0)), "gpu:0");
  EXPECT_EQ(to_string(Device(DeviceKind::gpu, 3)), "gpu:3");
  std::ostringstream os;
  os << Device(DeviceKind::gpu, 1);
  EXPECT_EQ(os.str(), "gpu:1");
}

TEST(Device, ComparableAndHashable) {
  const Device g0(DeviceKind::gpu, 0), g1(DeviceKind::gpu, 1);
  EXPECT_EQ(g0, Device(DeviceKind::gpu, 0));
  EXPECT_NE(g0, g1);
  EXPECT_NE(g0, cpu());
  EXPECT_TRUE(cpu() < g0);
  EXPECT_TRUE(g0 < g1);
  EXPECT_EQ(Device(DeviceKind::cpu, 7), cpu()) << "the cpu has no index";
  const std::unordered_set<Device> set{cpu(), g0, g1, Device(DeviceKind::gpu, 0)};
  EXPECT_EQ(set.size(), 3u);
}

TEST(Device, ParsesNames) {
  EXPECT_EQ(parse_device("cpu"), cpu());
  EXPECT_EQ(parse_device("gpu"), Device(DeviceKind::gpu, 0));
  EXPECT_EQ(parse_device("gpu:2"), Device(DeviceKind::gpu, 2));
  for (const char* bad : {"", "gpu:", "gpu:-1", "gpu:1x", "tpu", "GPU"}) {
    EXPECT_THROW(parse_device(bad), std::invalid_argument) << bad;
  }
}

TEST(Device, HostOnlyBuildFallsBackToCpu) {
  if (kHasGpuBackend) GTEST_SKIP() << "this build has a GPU backend";
  reset_emulated_gpus();
  ASSERT_FALSE(gpus_are_emulated()) << "emulation must be off by default";
  EXPECT_EQ(num_gpus(), 0);
  EXPECT_EQ(try_gpu(), cpu());
  EXPECT_EQ(try_gpu(10), cpu());
  EXPECT_TRUE(try_all_gpus().empty());
}

TEST(Device, MissingGpuIsAClearError) {
  reset_emulated_gpus();
  const int n = num_gpus();
  try {
    gpu(n);
    FAIL() << "gpu(" << n << ") should not exist";
  } catch (const DeviceNotFoundError& e) {
    const std::string expected = "this process has " + std::to_string(n) + (n == 1 ? " GPU" : " GPUs");
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpu(-1), DeviceNotFoundError);
}

TEST_F(EmulatedGpus, AreDistinctAvailableDevices) {
  EXPECT_TRUE(gpus_are_emulated());
  EXPECT_EQ(num_gpus(), 2);
  EXPECT_EQ(gpu(0), Device(DeviceKind::gpu, 0));
  EXPECT_EQ(gpu(1), Device(DeviceKind::gpu, 1));
  EXPECT_THROW(gpu(2), DeviceNotFoundError);
  EXPECT_EQ(try_gpu(), gpu(0));
  EXPECT_EQ(try_gpu(1), gpu(1));
  EXPECT_EQ(try_gpu(2), cpu());
  EXPECT_EQ(try_all_gpus(), (std::vector<Device>{gpu(0), gpu(1)}));
}

TEST_F(EmulatedGpus, AreNeverSilent) {
  EXPECT_EQ(describe(gpu(1)), "gpu:1 (emulated)");
  EXPECT_EQ(describe(cpu()), "cpu");
  EXPECT_TRUE(uses_host_memory(gpu(0)));
}

TEST(Device, TheFunctionsSeeTheOneEmulationMainMade) {
  EXPECT_THROW({ GpuEmulation second; }, std::logic_error) << "the test main's lives: one per process";
  set_emulated_gpus(3);
  EXPECT_EQ(num_gpus(), 3) << "the refused second one left the first in place";
  EXPECT_EQ(emulated_gpu_count(), 3);
  reset_emulated_gpus();
}

TEST(Device, EmulationComesFromTheEnvironment) {
  ::setenv("MINIGPU_EMULATE_GPUS", "3", 1);
  reset_emulated_gpus();
  EXPECT_EQ(num_gpus(), 3);
  // A usage error (exit 2), bounded like run.emulate_gpus.
  for (const char* bad : {"two", "-1", "3x", "1025", "99999999999999999999"}) {
    ::setenv("MINIGPU_EMULATE_GPUS", bad, 1);
    reset_emulated_gpus();
    EXPECT_THROW(num_gpus(), InputError) << bad;
  }
  ::setenv("MINIGPU_EMULATE_GPUS", "1024", 1);
  reset_emulated_gpus();
  EXPECT_EQ(num_gpus(), kMaxEmulatedGpus);
  ::unsetenv("MINIGPU_EMULATE_GPUS");
  reset_emulated_gpus();
  EXPECT_FALSE(gpus_are_emulated());
  EXPECT_THROW(set_emulated_gpus(-1), std::invalid_argument);
  EXPECT_THROW(set_emulated_gpus(kMaxEmulatedGpus + 1), std::invalid_argument);
}

}  // namespace
}  // namespace minigpu
