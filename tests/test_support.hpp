// Helpers shared by the unit tests.
#pragma once

#include "core/device.hpp"

#include <gtest/gtest.h>

namespace minigpu::testing {

/// Runs a test with two host-emulated GPUs, then restores the environment's setting.
class EmulatedGpus : public ::testing::Test {
 protected:
  void SetUp() override { set_emulated_gpus(2); }
  void TearDown() override { reset_emulated_gpus(); }
};

}  // namespace minigpu::testing
