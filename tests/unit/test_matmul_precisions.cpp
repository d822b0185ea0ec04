// The matmul experiment below float32: bfloat16 and float16 storage and TF32 products, each row
// within its precision's bound with its error against float64, on every device and kernel
// that serves them; bfloat16 `vendor` on the host (oneDNN) or its refusal.
#include "core/backend_blas.hpp"
#include "core/shape.hpp"
#include "experiment_harness.hpp"
#include "io/run_record.hpp"
#include "kernels/matmul_vendor.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace minigpu {
namespace {

void expect_precision_refused(const std::string& experiment_yaml, const std::string& key,
                              const std::string& words = "") {
  testing::expect_key_error("matmul", experiment_yaml, key, words);
}

class MatmulPrecisionRun : public testing::EmulatedGpus {};

TEST_F(MatmulPrecisionRun, SixteenBitProductsVerifyOnCpuAndEmulatedGpus) {
  const auto outcome = testing::run_yaml(
      "run: {warmups: 0, repetitions: 2}\n"
      "experiments:\n"
      "  - name: matmul\n"
      "    sizes: [8, 300]\n"
      "    variants: [tiled, reference]\n"
      "    dtypes: [bfloat16, float16]\n");
  ASSERT_EQ(outcome.results.size(), 16u);  // 2 dtypes x 2 variants x 2 sizes x 2 devices
  for (const auto& r : outcome.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    EXPECT_NE(r.check.detail.find("on 8 rows in double"), std::string::npos) << r.check.detail;
    EXPECT_DOUBLE_EQ(r.work.bytes, 3.0 * 2 * std::pow(std::stod(r.spec.param("n")), 2)) << r.spec.label;
    // The error against float64: above 0 (C rounds to 16 bits) and within about one rounding
    // of the storage, the Frobenius measure (an average) below the max-abs one.
    ASSERT_TRUE(r.check.error) << r.spec.label;
    const double u = unit_roundoff(r.spec.dtype);
    EXPECT_GT(r.check.error->max_abs_rel, 0.0) << r.spec.label;
    EXPECT_LE(r.check.error->max_abs_rel, 2.5 * u) << r.spec.label;
    EXPECT_GT(r.check.error->frobenius_rel, 0.0) << r.spec.label;
    EXPECT_LT(r.check.error->frobenius_rel, r.check.error->max_abs_rel) << r.spec.label;
  }
  // The columns of results.csv: the two measures of a 16-bit row, empty for a float row.
  auto rows = outcome.results;
  rows.push_back(rows.front());
  rows.back().spec.dtype = DType::f32;
  rows.back().check.error.reset();
  std::istringstream csv(io::results_csv(rows));
  std::vector<std::string> lines;
  for (std::string l; std::getline(csv, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), rows.size() + 1);
  const std::string &header = lines.front(), &line = lines[1], &last = lines.back();
  EXPECT_NE(header.find(",verified,check,error_max_abs_rel,error_frobenius_rel"), std::string::npos)
      << header;
  const auto fields = [](const std::string& l) {  // quoted fields may hold commas
    std::vector<std::string> out(1);
    bool quoted = false;
    for (char c : l) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted)
        out.emplace_back();
      else
        out.back() += c;
    }
    return out;
  };
  const auto names = fields(header), first = fields(line);
  const auto at = std::find(names.begin(), names.end(), "error_max_abs_rel") - names.begin();
  ASSERT_LT(at + 1, static_cast<std::ptrdiff_t>(first.size())) << line;
  const ReferenceError& e = *outcome.results.front().check.error;  // written to 9 digits
  EXPECT_NEAR(std::stod(first[at]), e.max_abs_rel, 1e-8 * e.max_abs_rel) << line;
  EXPECT_NEAR(std::stod(first[at + 1]), e.frobenius_rel, 1e-8 * e.frobenius_rel) << line;
  EXPECT_EQ(fields(last)[at], "") << "a float row's error columns are empty: " << last;
}

// bfloat16 `vendor` on the host is oneDNN's matmul where the build links it and the CPU has
// AVX512_BF16 (each row within bfloat16's bound, with its error), and is refused by name elsewhere.
TEST_F(MatmulPrecisionRun, HostVendorBFloat16IsOneDnnOrRefused) {
  const std::string yaml = "    devices: [cpu]\n    dtypes: [bfloat16]\n    variants: [vendor]\n";
  if (!host_has_bf16_gemm())
    return expect_precision_refused(yaml, "variants", "vendor has no bfloat16 GEMM for cpu in this build");
  const auto outcome = testing::run_yaml(
      "run: {warmups: 0, repetitions: 1}\nexperiments:\n  - name: matmul\n    sizes: [7, 65, 300]\n" + yaml);
  ASSERT_EQ(outcome.results.size(), 3u);
  for (const auto& r : outcome.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    EXPECT_NE(r.check.detail.find("on 8 rows in double"), std::string::npos) << r.check.detail;
    ASSERT_TRUE(r.check.error) << r.spec.label;
    EXPECT_GT(r.check.error->max_abs_rel, 0.0) << r.spec.label;
    EXPECT_LE(r.check.error->max_abs_rel, 2.5 * unit_roundoff(DType::bf16)) << r.spec.label;
  }
}

class MatmulPrecisionOnEachDevice : public testing::OnEachDevice {};
MINIGPU_ON_EACH_DEVICE(MatmulPrecisionOnEachDevice);

// bfloat16, float16 and TF32 with every kernel the device has for them: each row within its
// precision's bound (on a real GPU: the Kokkos kernel on 16-bit storage and cublasGemmEx).
TEST_P(MatmulPrecisionOnEachDevice, EveryPrecisionBelowFloatVerifies) {
  const bool vendor = kernels::has_mixed_vendor_gemm(device());
  const auto outcome = testing::run_yaml(
      "run: {warmups: 0, repetitions: 1}\n"
      "experiments:\n"
      "  - name: matmul\n"
      "    sizes: [7, 65, 300]\n"
      "    dtypes: [bfloat16, float16" +
      std::string(vendor ? ", float32]\n" : "]\n") + "    devices: [" + (device().is_cpu() ? "cpu" : "gpu") +
      "]\n"
      "    variants: " +
      (vendor ? "[reference, tiled, vendor, vendor_tf32]\n" : "[reference, tiled]\n"));
  // 16-bit: 2 dtypes x (reference, tiled, vendor where served); float32: every variant but
  // vendor_tf32 checks small integers as before, vendor_tf32 against TF32's bound.
  ASSERT_EQ(outcome.results.size(), 3u * (vendor ? 2u * 3u + 4u : 2u * 2u));
  for (const auto& r : outcome.results) {
    EXPECT_EQ(r.spec.device, device());
    EXPECT_TRUE(r.check.passed) << r.spec.label << " " << to_string(r.spec.dtype) << ": " << r.check.detail;
    if (r.spec.dtype != DType::f32 || r.spec.param("variant") == "vendor_tf32") {
      EXPECT_NE(r.check.detail.find("on 8 rows in double"), std::string::npos) << r.check.detail;
    }
  }
}

}  // namespace
}  // namespace minigpu
