// Helpers shared by the unit tests: devices to run on, and emulation that never leaks.
#pragma once

#include "comm/mpi_session.hpp"
#include "core/device.hpp"

#include <gtest/gtest.h>

#include <string>

namespace minigpu::testing {

/// The test binary's MPI session (tests/support/test_main.cpp), for code that takes one.
const MpiSession& mpi_session();

/// Runs a test with two host-emulated GPUs, then restores the environment's setting.
class EmulatedGpus : public ::testing::Test {
 protected:
  void SetUp() override { set_emulated_gpus(2); }
  void TearDown() override { reset_emulated_gpus(); }
};

/// Where a device test runs: the cpu, an emulated GPU (host memory), or the build's real GPU.
enum class TestDevice { cpu, emulated, gpu };

/// "cpu", "emulated" or "gpu": the suffix of test names, so --gtest_filter='*/gpu*' selects
/// the real-GPU instances (the `gpu` ctest label).
std::string name_of(TestDevice kind);

/// Arranges `kind` for one test (emulation on with two GPUs for `emulated`, off otherwise)
/// and returns the device under test. For `gpu` without a real GPU it returns cpu() and
/// sets `skip_reason` to why: the build's backends and the node's GPU count.
Device arrange_device(TestDevice kind, std::string& skip_reason);

/// Device kind K and scalar type T: one instance of a typed device test.
template <TestDevice K, class T>
struct On {
  static constexpr TestDevice kind = K;
  using value_type = T;
};

using EveryDeviceAndDtype =
    ::testing::Types<On<TestDevice::cpu, float>, On<TestDevice::cpu, double>, On<TestDevice::emulated, float>,
                     On<TestDevice::emulated, double>, On<TestDevice::gpu, float>,
                     On<TestDevice::gpu, double>>;

/// Names typed instances "cpu_float32", "gpu_float64", ...
struct OnNames {
  template <class P>
  static std::string GetName(int) {
    return name_of(P::kind) + (std::is_same_v<typename P::value_type, float> ? "_float32" : "_float64");
  }
};

/// Typed over EveryDeviceAndDtype: device() is the device under test; the real-GPU instance
/// skips, saying why, where the build or node has none. Emulation is reset after each test.
template <class P>
class OnEveryDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    device_ = arrange_device(P::kind, why);
    if (!why.empty()) GTEST_SKIP() << why;
  }
  void TearDown() override { reset_emulated_gpus(); }
  Device device() const { return device_; }

 private:
  Device device_;
};

/// Value-parameterised over TestDevice, like OnEveryDevice without the dtype.
class OnEachDevice : public ::testing::TestWithParam<TestDevice> {
 protected:
  /// "    device: gpu:0\n": an experiment entry's line naming the device under test (on a GPU
  /// build `auto` would be the real GPU even for the cpu instance).
  std::string device_key() const { return "    device: " + to_string(device_) + "\n"; }
  void SetUp() override {
    std::string why;
    device_ = arrange_device(GetParam(), why);
    if (!why.empty()) GTEST_SKIP() << why;
  }
  void TearDown() override { reset_emulated_gpus(); }
  Device device() const { return device_; }

 private:
  Device device_;
};

}  // namespace minigpu::testing

/// Instantiates a value-parameterised suite derived from OnEachDevice on every device.
#define MINIGPU_ON_EACH_DEVICE(Suite)                                                                  \
  INSTANTIATE_TEST_SUITE_P(                                                                            \
      Devices, Suite,                                                                                  \
      ::testing::Values(::minigpu::testing::TestDevice::cpu, ::minigpu::testing::TestDevice::emulated, \
                        ::minigpu::testing::TestDevice::gpu),                                          \
      [](const ::testing::TestParamInfo<::minigpu::testing::TestDevice>& device_info) {                \
        return ::minigpu::testing::name_of(device_info.param);                                         \
      })
