// The transfer experiment: its byte pattern and chunked copy, its input errors, and tiny runs.
#include "core/errors.hpp"
#include "core/backend.hpp"
#include "experiment_harness.hpp"
#include "kernels/byte_copy.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <set>

namespace minigpu {
namespace {

using Bytes = Kokkos::View<unsigned char*, Kokkos::LayoutRight, HostMemSpace>;

const Finding* find(const std::vector<Finding>& findings, const std::string& name) {
  for (const auto& f : findings) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string param(const CaseSpec& spec, const std::string& key) {
  for (const auto& [k, v] : spec.params) {
    if (k == key) return v;
  }
  return "";
}

TEST(TransferPattern, FillMatchesDefinitionAndCheckFindsACorruptByte) {
  const std::int64_t n = 1003;  // not a multiple of 8: the tail word is partial
  Bytes buf("test::buf", n);
  kernels::fill_pattern(buf, 42);
  Kokkos::fence();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(buf(i), kernels::pattern_byte(42, i)) << "at " << i;
  EXPECT_EQ(kernels::find_pattern_mismatch(buf.data(), n, 42), -1);
  EXPECT_EQ(kernels::find_pattern_mismatch(buf.data(), n, 43), 0) << "another seed is another pattern";
  buf(777) ^= 0x10;
  EXPECT_EQ(kernels::find_pattern_mismatch(buf.data(), n, 42), 777);
  buf(777) ^= 0x10;
  buf(n - 1) = static_cast<unsigned char>(buf(n - 1) + 1);
  EXPECT_EQ(kernels::find_pattern_mismatch(buf.data(), n, 42), n - 1);
}

TEST(TransferPattern, ShiftedDataDoesNotMatch) {
  // A chunk landing at the wrong offset must fail the check, even by a multiple of 8 or 256.
  const std::int64_t n = 4096;
  Bytes buf("test::buf", n + 256);
  kernels::fill_pattern(buf, 7);
  Kokkos::fence();
  for (std::int64_t shift : {1, 8, 256}) {
    EXPECT_NE(kernels::find_pattern_mismatch(buf.data() + shift, n, 7), -1) << "shift " << shift;
  }
}

TEST(TransferPattern, ChunkedCopyCopiesEveryByteOnce) {
  const std::int64_t n = 1000;
  Bytes src("test::src", n);
  kernels::fill_pattern(src, 9);
  for (std::int64_t chunks : {1, 7, 16, 1000}) {
    Bytes dst("test::dst", n);
    kernels::chunked_copy(dst, src, chunks);
    EXPECT_EQ(kernels::find_pattern_mismatch(dst.data(), n, 9), -1) << chunks << " chunks";
  }
  Bytes partial("test::partial", n);
  Kokkos::deep_copy(Kokkos::subview(partial, Kokkos::make_pair(0, 500)),
                    Kokkos::subview(src, Kokkos::make_pair(0, 500)));
  EXPECT_EQ(kernels::find_pattern_mismatch(partial.data(), n, 9), 500);
}

void expect_input_error(const std::string& entry, const std::string& key) {
  testing::expect_key_error("transfer", entry, key);
}

TEST(TransferConfig, BadValuesNameTheirKey) {
  expect_input_error("    sizes: [0]\n", "sizes");
  expect_input_error("    sizes: [1KiB, -5]\n", "sizes");
  expect_input_error("    sizes: [lots]\n", "sizes");
  expect_input_error("    directions: [h2d, sideways]\n", "directions");
  expect_input_error("    host_memory: [paged]\n", "host_memory");
  expect_input_error("    chunks: [1, 0]\n", "chunks");
  expect_input_error("    device: tpu\n", "device");
  expect_input_error("    device: gpu:7\n", "device");
  expect_input_error("    sise: [1KiB]\n", "sise");
}

TEST(TransferConfig, CasesCoverTheSweepAndSkipChunksSmallerThanAByte) {
  const RunPlan plan = testing::plan_yaml(
      "experiments:\n  - name: transfer\n    device: cpu\n    sizes: [8, 4KiB]\n    chunks: [1, 16]\n");
  const auto& cases = plan.experiments.at(0).cases;
  // h2d and d2h pageable (pinned only on a GPU), d2d: 3 kinds x (1 + 2 chunk counts).
  ASSERT_EQ(cases.size(), 9u);
  std::set<std::string> directions;
  for (const auto& c : cases) {
    directions.insert(param(c, "direction"));
    EXPECT_EQ(c.device, cpu());
    EXPECT_FALSE(param(c, "bytes") == "8" && param(c, "chunks") == "16") << c.label;
    EXPECT_EQ(param(c, "host_memory") == "-", param(c, "direction") == "d2d") << c.label;
    EXPECT_NE(param(c, "host_memory"), "pinned") << "cpu memory is never pinned";
  }
  EXPECT_EQ(directions, (std::set<std::string>{"h2d", "d2h", "d2d"}));
}

const char* kTinyRun =
    "run:\n  warmups: 0\n  repetitions: 2\nexperiments:\n  - name: transfer\n"
    "    sizes: [1KiB, 64KiB]\n    chunks: [1, 4]\n";

void expect_tiny_run_verified(Device expected_device) {
  const RunOutcome out = testing::run_yaml(kTinyRun);
  EXPECT_TRUE(out.all_verified);
  ASSERT_EQ(out.results.size(), 12u);  // 3 direction/memory kinds x 2 sizes x 2 chunk counts
  for (const auto& r : out.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    EXPECT_EQ(r.spec.device, expected_device);
    EXPECT_EQ(r.work.bytes, std::stod(param(r.spec, "bytes"))) << r.spec.label;
    EXPECT_EQ(r.work.flops, 0);
  }
  for (const char* name : {"peak_gbps_h2d_pageable", "peak_gbps_d2h_pageable", "peak_gbps_d2d",
                           "many_small_over_one_big_h2d_pageable", "many_small_over_one_big_d2d"}) {
    const Finding* f = find(out.findings, name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_GT(f->value, 0) << name;
  }
  const Finding* big = find(out.findings, "many_small_over_one_big_d2h_pageable");
  ASSERT_NE(big, nullptr);
  EXPECT_NE(big->note.find("64.0 KiB as 4 copies vs 1"), std::string::npos) << big->note;
  const Finding* pinned = find(out.findings, "pinned_host_memory");
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pinned->value, 0);
  EXPECT_EQ(pinned->note.rfind("pageable only", 0), 0u) << pinned->note;
}

TEST(TransferRun, TinySweepOnCpuVerifies) {
  if (kHasPinnedHostMemory && num_gpus() > 0) GTEST_SKIP() << "a real GPU adds pinned cases";
  expect_tiny_run_verified(cpu());
}

class TransferEmulated : public testing::EmulatedGpus {};

TEST_F(TransferEmulated, TinySweepOnEmulatedGpuVerifies) { expect_tiny_run_verified(gpu(0)); }

TEST(TransferRun, PinnedCasesOnARealGpu) {
  if (!kHasGpuBackend || num_gpus() == 0) GTEST_SKIP() << "needs a GPU backend and a GPU";
  const RunOutcome out = testing::run_yaml(kTinyRun);
  EXPECT_TRUE(out.all_verified);
  EXPECT_EQ(out.results.size(), 20u);  // pinned adds h2d and d2h rows
  const Finding* pinned = find(out.findings, "pinned_host_memory");
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pinned->value, 1);
  EXPECT_NE(find(out.findings, "pinned_over_pageable_h2d"), nullptr);
}

}  // namespace
}  // namespace minigpu
