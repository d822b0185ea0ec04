// The matmul kernels against a host triple loop on every device, and its checks against wrong
// results (the experiment's input errors and runs: test_matmul_experiment.cpp; below float32:
// test_matmul_precisions.cpp; the small path against the general loops: test_gemm_host_small.cpp).
#include "core/errors.hpp"
#include "core/tensor.hpp"
#include "experiment_harness.hpp"
#include "kernels/fill_integers.hpp"
#include "kernels/gemm.hpp"
#include "kernels/gemm_host.hpp"
#include "kernels/gemm_host_pack.hpp"
#include "kernels/gemm_host_small.hpp"
#include "kernels/matmul_check.hpp"
#include "kernels/matmul_reference.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

namespace minigpu {
namespace {

template <class T>
std::vector<T> host_product(const std::vector<T>& a, const std::vector<T>& b, std::int64_t m, std::int64_t n,
                            std::int64_t k) {
  std::vector<T> c(static_cast<std::size_t>(m * n), T(0));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}

template <class T>
Tensor<T> small_integers(const Shape& shape, Device d, std::uint64_t seed) {
  Tensor<T> t(shape, d, "test::small_integers");
  with_views(
      d, [&](const auto& v) { kernels::fill_small_integers(v, seed); }, t);
  return t;
}

template <class P>
class MatmulKernels : public testing::OnEveryDevice<P> {};
TYPED_TEST_SUITE(MatmulKernels, testing::EveryDeviceAndDtype, testing::OnNames);

// Sizes not divisible by the tile, square and rectangular: every product is exact, with every
// kernel the device has. Among them: k beyond the host kernel's KC (512), so C accumulates over
// passes; a last column panel of one vector or less (the narrow tile: n = 44) or half a vector
// (n = 36, 40, 100); last rows that a shorter tile takes exactly, read in place (32 = 2·12 + 8,
// and 28, 64, 100 = 12·q + 4, whose last 16 rows run as two tiles of 8) or not (63: 3 rows); B
// read in place (n = 64, 100); and products large enough to share out among threads (above
// 4 MFLOP per worker): 300 × 70 splits its rows, 40 × 1030, 40 × 600 and 40 × 300 (A read in
// place, so slabs from 128 columns) and 20 × 1100 (k across KC) cut C into one slab of columns
// per worker, the last slab ragged; 128 × 128 × 256 shares its rows over B wholly in place;
// 64 × 256 × 256 and 64 × 272 × 256 take slabs that read B in place too, the second's last
// panel ragged and packed in float32; 200 × 384 × 600 (A packed, one pass) cuts slabs of 192
// columns where its B block outgrows half of L2 (1 MiB L2s: both dtypes; 2 MiB: float64); k past
// one pass in any blocking (1500 and 2100).
TYPED_TEST(MatmulKernels, EveryKernelMatchesHostTripleLoopExactly) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  // From {36, 33, 8}: last panels of 1 to 8 columns in float32 and 3 or 4 in float64 (the grouped
  // tiles of gemm_host_grouped.hpp, one vector or two, whole or ragged), under tiles of 12, 8 and
  // two of 8 rows; k not a multiple of 4; a last 5 rows packed; k past KC (A packed, whatever
  // the caches) under the packed tile's full, M2 and M1 heights ({300, 70, 1100}, {29, 9, 1030}).
  const std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> shapes = {
      {1, 1, 1},      {7, 7, 7},      {17, 17, 17},    {63, 63, 63},    {65, 65, 65},    {129, 129, 129},
      {17, 33, 5},    {40, 7, 65},    {3, 50, 16},     {37, 129, 5},    {130, 3, 257},   {1, 200, 300},
      {29, 9, 1030},  {300, 70, 600}, {32, 64, 64},    {64, 64, 64},    {100, 100, 100}, {28, 44, 28},
      {64, 40, 64},   {100, 36, 100}, {36, 33, 8},     {44, 98, 20},    {16, 99, 12},    {24, 35, 16},
      {20, 38, 12},   {24, 100, 30},  {101, 100, 100}, {40, 1030, 130}, {20, 1100, 530}, {300, 70, 1100},
      {40, 600, 200}, {40, 300, 400}, {128, 128, 256}, {64, 256, 256},  {64, 272, 256},  {30, 20, 1500},
      {13, 40, 2100}, {200, 384, 600}};
  for (const char* kernel : {"reference", "tiled", "vendor"}) {
    if (std::string(kernel) == "vendor" && !kernels::has_vendor_gemm(d)) continue;
    for (const auto& shape : shapes) {
      const std::int64_t m = std::get<0>(shape), n = std::get<1>(shape), k = std::get<2>(shape);
      const auto a = small_integers<T>({m, k}, d, 3);
      const auto b = small_integers<T>({k, n}, d, 4);
      Tensor<T> c({m, n}, d, "test::C");
      with_views(
          d,
          [&](const auto& cv, const auto& av, const auto& bv) {
            if (std::string(kernel) == "tiled") kernels::matmul(GemmKernel::native, cv, av, bv, m, n, k);
            if (std::string(kernel) == "reference") kernels::matmul_reference(cv, av, bv, m, n, k);
            if (std::string(kernel) == "vendor") kernels::matmul(GemmKernel::vendor, cv, av, bv, m, n, k);
          },
          c, a, b);
      EXPECT_EQ(c.to_vector(), host_product(a.to_vector(), b.to_vector(), m, n, k))
          << kernel << " " << m << "x" << k << " times " << k << "x" << n << " on " << describe(d);
    }
  }
}

// C = α·A·B with α in device memory (as the logging step's previous factor), and for the native
// kernel C = α·A·B + C0 too: exact for small integers and α = -0.5. Shapes that take each tile
// (full, narrow, half, grouped, the split tail, packed rows) and k across KC, where α must scale
// every pass's sum and never C0. A dropped or doubled α fails them all.
TYPED_TEST(MatmulKernels, ScaledProductIsAlphaTimesTheProductExactly) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  const std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> shapes = {
      {7, 7, 7},    {64, 64, 64},  {100, 100, 100}, {28, 44, 28},    {24, 35, 16},  {20, 38, 12},
      {63, 40, 65}, {29, 9, 1030}, {300, 70, 600},  {40, 1040, 520}, {13, 40, 2100}};
  for (const GemmKernel kernel : {GemmKernel::native, GemmKernel::vendor}) {
    if (kernel == GemmKernel::vendor && !kernels::has_vendor_gemm(d)) continue;
    for (const bool accumulate : {false, true}) {
      if (accumulate && kernel == GemmKernel::vendor) continue;  // gemm_scaled is C = α·A·B
      for (const auto& [m, n, k] : shapes) {
        const auto a = small_integers<T>({m, k}, d, 3);
        const auto b = small_integers<T>({k, n}, d, 4);
        const auto c = small_integers<T>({m, n}, d, 5);
        const std::vector<T> c0 = c.to_vector();
        with_views(
            d,
            [&](const auto& cv, const auto& av, const auto& bv) {
              Kokkos::View<T, typename std::decay_t<decltype(cv)>::memory_space> alpha("test::alpha");
              Kokkos::deep_copy(alpha, T(-0.5));
              const GemmDims dims = dense_gemm(m, n, k);
              if (accumulate) kernels::gemm_native(cv, av, bv, dims, true, alpha.data());
              if (!accumulate) kernels::gemm_scaled(kernel, cv, av, bv, dims, alpha);
            },
            c, a, b);
        std::vector<T> want = host_product(a.to_vector(), b.to_vector(), m, n, k);
        for (std::size_t e = 0; e < want.size(); ++e)
          want[e] = T(-0.5) * want[e] + (accumulate ? c0[e] : T(0));
        EXPECT_EQ(c.to_vector(), want)
            << to_string(kernel) << (accumulate ? " C+=" : " C=") << "-0.5*A*B, " << m << "x" << k
            << " times " << k << "x" << n << " on " << describe(d);
      }
    }
  }
}

TYPED_TEST(MatmulKernels, SmallIntegersAreInRangeAndDeterministic) {
  using T = typename TypeParam::value_type;
  const auto x = small_integers<T>({1000}, cpu(), 9).to_vector();
  EXPECT_EQ(x, small_integers<T>({1000}, this->device(), 9).to_vector());
  std::vector<int> seen(5, 0);
  for (T v : x) {
    ASSERT_TRUE(v >= -2 && v <= 2 && v == static_cast<T>(static_cast<int>(v))) << v;
    ++seen[static_cast<int>(v) + 2];
  }
  for (int count : seen) EXPECT_GT(count, 100);
}

TYPED_TEST(MatmulKernels, VendorMatchesHostTripleLoopExactly) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  if (!kernels::has_vendor_gemm(d)) GTEST_SKIP() << "no vendor GEMM for " << describe(d) << " in this build";
  const std::int64_t m = 19, n = 23, k = 31;
  const auto a = small_integers<T>({m, k}, d, 5);
  const auto b = small_integers<T>({k, n}, d, 6);
  Tensor<T> c({m, n}, d, "test::C");
  with_views(
      d, [&](const auto& cv, const auto& av, const auto& bv) { kernels::matmul_vendor(cv, av, bv, m, n, k); },
      c, a, b);
  EXPECT_EQ(c.to_vector(), host_product(a.to_vector(), b.to_vector(), m, n, k));
}

// Host memory always has CBLAS. GPU memory without a GPU BLAS (HIP and SYCL builds) refuses
// 'vendor' with one line naming the memory and the way out, as an input error at `kernel`.
TEST(VendorGemm, RefusedOnlyWhereNoGemmServesTheMemory) {
  EXPECT_EQ(kernels::vendor_gemm_refusal(cpu(), "native"), "");
  if (num_gpus() == 0 || kernels::has_vendor_gemm(gpu())) {
    GTEST_SKIP() << "every device of this build has a vendor GEMM";
  }
  const std::string why = kernels::vendor_gemm_refusal(gpu(), "native");
  EXPECT_NE(why.find("'vendor' has no GEMM for gpu:0 memory"), std::string::npos) << why;
  EXPECT_NE(why.find("use 'native'"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  for (const char* experiment : {"logging", "linear", "multi_gpu_concurrency"}) {
    testing::expect_key_error(experiment, "    device: gpu\n    kernel: vendor\n", "kernel",
                              "has no GEMM for gpu:0");
  }
}

// The checks the experiment relies on must fail for a product with one wrong entry.
TYPED_TEST(MatmulKernels, ChecksCatchOneWrongEntry) {
  using T = typename TypeParam::value_type;
  const Device d = this->device();
  const std::int64_t n = 300;
  const auto a = small_integers<T>({n, n}, d, 1);
  const auto b = small_integers<T>({n, n}, d, 2);
  Tensor<T> c({n, n}, d, "test::C");
  with_views(
      d,
      [&](const auto& cv, const auto& av, const auto& bv) {
        kernels::matmul_reference(cv, av, bv, n, n, n);
        EXPECT_EQ(kernels::matmul_mismatches_host(cv, av, bv, n, n, n), 0);
        EXPECT_LE(kernels::matmul_identity_error(cv, av, bv, n, n, n),
                  kernels::matmul_identity_tolerance<T>(n));
        auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cv);
        host(123 * n + 45) += T(1);
        Kokkos::deep_copy(cv, host);
        EXPECT_EQ(kernels::matmul_mismatches_host(cv, av, bv, n, n, n), 1);
        EXPECT_GT(kernels::matmul_identity_error(cv, av, bv, n, n, n),
                  1e3 * kernels::matmul_identity_tolerance<T>(n));
      },
      c, a, b);
}

TEST(MatmulCheck, SampledRowsCatchAWrongEntryInARowTheyVisit) {
  // A = [[1, 2], [3, 4]], B = I: C = A; every row is visited below 16 rows.
  Kokkos::View<double*, Kokkos::HostSpace> a("test::a", 4), b("test::b", 4), c("test::c", 4);
  for (int i = 0; i < 4; ++i) a(i) = c(i) = i + 1;
  b(0) = b(3) = 1;
  EXPECT_EQ(kernels::sampled_rows_error(c, a, b, 2), 0);
  c(3) = 5;  // want 4: |5 - 4| / (1 + 4)
  EXPECT_DOUBLE_EQ(kernels::sampled_rows_error(c, a, b, 2), 0.2);
  // n = 16: rows 0, 2, 4, … are visited (every n/8-th), so row 1 is not and row 2 is.
  const std::int64_t n = 16;
  Kokkos::View<double*, Kokkos::HostSpace> a16("test::a16", n * n), id("test::id", n * n),
      c16("test::c16", n * n);
  for (std::int64_t i = 0; i < n * n; ++i) a16(i) = c16(i) = static_cast<double>(i % 7);
  for (std::int64_t i = 0; i < n; ++i) id(i * n + i) = 1;
  c16(1 * n + 5) += 3;
  EXPECT_EQ(kernels::sampled_rows_error(c16, a16, id, n), 0) << "row 1 is not sampled";
  c16(2 * n + 5) += 3;  // A(2, 5) = 37 % 7 = 2: |5 - 2| / 3
  EXPECT_DOUBLE_EQ(kernels::sampled_rows_error(c16, a16, id, n), 1.0);
  c16(4 * n) = std::nan("");
  EXPECT_TRUE(std::isnan(kernels::sampled_rows_error(c16, a16, id, n))) << "NaN never passes";
}

TEST(MatmulCheck, OwnTypeBoundCatchesAnEntryOffByOneThousandth) {
  // k = 65 terms in [0, 1): the bound is C's rounding plus γ_65 in T's ulp, and in double the
  // reference's own γ_65 (by hand: 65 · 2^-23 = 7.7e-6 in float, 2 · 65 · 2^-52 = 2.9e-14 in
  // double), far below a 1e-3 error.
  EXPECT_NEAR(kernels::own_type_product_bound<float>(65), 0.5 * 0x1p-23 + 65 * 0x1p-23, 1e-9);
  EXPECT_NEAR(kernels::own_type_product_bound<double>(65), 0.5 * 0x1p-52 + 130 * 0x1p-52, 1e-18);
  const std::int64_t n = 65;
  Kokkos::View<float*, Kokkos::HostSpace> a("test::a", n * n), b("test::b", n * n), c("test::c", n * n);
  kernels::fill_product_inputs(a, b, true);  // as `data: uniform` fills them
  kernels::matmul_reference(c, a, b, n, n, n);
  Kokkos::fence();
  EXPECT_LE(kernels::sampled_rows_error(c, a, b, n), kernels::own_type_product_bound<float>(n));
  c(8 * n + 3) *= 1.001f;  // row 8 is sampled (every n/8-th row)
  EXPECT_GT(kernels::sampled_rows_error(c, a, b, n), 10 * kernels::own_type_product_bound<float>(n));
}

TEST(MatmulCheck, GemmFlopsAreTwoPerTerm) {
  EXPECT_EQ(gemm_flops(2, 3, 4), 48);
  EXPECT_EQ(gemm_flops(1000, 1000, 1000), 2e9);
}

// gemm_host's A panel is A's MR rows in k-major order, zero past the panel's rows: the transpose
// in registers (W steps of k at a time) and the scalar one for the rest must both place every
// element. Every kc from 1 to past three vectors' worth, full panels and a ragged one; distinct
// values, so that a lane or row swapped anywhere shows.
template <class T, int MR>
void expect_a_panel_is_a_transpose() {
  constexpr int W = kernels::detail::HostTile<T>::W;
  const std::int64_t lda = 3 * W + 5;
  std::vector<T> a(static_cast<std::size_t>(MR * lda));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<T>(i + 1);
  for (const std::int64_t rows : {std::int64_t(MR), std::int64_t(MR - 1), std::int64_t(1)}) {
    for (std::int64_t kc = 1; kc <= 3 * W + 3; ++kc) {
      std::vector<T> packed(static_cast<std::size_t>(MR * kc), T(-1));
      kernels::detail::pack_a_panel<MR>(packed.data(), a.data(), lda, rows, kc);
      for (std::int64_t p = 0; p < kc; ++p) {
        for (std::int64_t r = 0; r < MR; ++r) {
          ASSERT_EQ(packed[p * MR + r], r < rows ? a[r * lda + p] : T(0))
              << "row " << r << " of " << rows << ", step " << p << " of kc = " << kc;
        }
      }
    }
  }
}

TEST(GemmHostPacking, APanelIsATransposeOfAsRows) {
  // Both heights of panel: the in-place tile's and the packed one's.
  expect_a_panel_is_a_transpose<float, kernels::detail::HostTile<float>::MR>();
  expect_a_panel_is_a_transpose<double, kernels::detail::HostTile<double>::MR>();
  expect_a_panel_is_a_transpose<float, kernels::detail::kHostPackedRows>();
  expect_a_panel_is_a_transpose<double, kernels::detail::kHostPackedRows>();
}

// gemm_host_small takes the smallest products (every tile of C's last rows it has: M1 alone, M2,
// MR, and M1 after full tiles as two of M2; B in whole panels, or a last 4 columns that the
// grouped tile takes where k is a multiple of 4 and the build has it), and refuses last rows no
// tile reads in place, A that gemm_host packs and more columns than NC. Through gemm_host,
// C = α·A·B + C0 on small integers against the triple loop, exactly, so a tile skipped, doubled
// or misplaced fails, on the small path or off it.
template <class T>
void expect_small_products_exact() {
  using Tile = kernels::detail::HostTile<T>;
  constexpr std::int64_t MR = Tile::MR, NR = Tile::NR, M1 = Tile::M1, M2 = Tile::M2;
  const std::int64_t nc = 4096;
  const bool grouped_tile = kernels::detail::k_group<T>(4) == 4;
  for (const std::int64_t m : {M1, M2, MR, 2 * MR + M2, MR + M1, 4 * MR + M1}) {
    for (const std::int64_t n : {NR, 2 * NR, 3 * NR + 4}) {
      for (const std::int64_t k : {1, 4, 5, 16}) {
        const GemmDims d = dense_gemm(m, n, k);
        const bool small = n % NR == 0 || (grouped_tile && k % 4 == 0);
        ASSERT_EQ(kernels::detail::small_product_plan<T>(d, true, nc) > 0, small)
            << m << "x" << n << "x" << k;
        for (const bool accumulate : {false, true}) {
          auto a = small_integers<T>({m, k}, cpu(), 3), b = small_integers<T>({k, n}, cpu(), 4);
          auto c = small_integers<T>({m, n}, cpu(), 5);
          const std::vector<T> c0 = c.to_vector();
          T alpha = T(-0.5);
          with_views(
              cpu(),
              [&](const auto& cv, const auto& av, const auto& bv) {
                kernels::gemm_host(cv, av, bv, d, accumulate, &alpha);
              },
              c, a, b);
          std::vector<T> want = host_product(a.to_vector(), b.to_vector(), m, n, k);
          for (std::size_t e = 0; e < want.size(); ++e)
            want[e] = alpha * want[e] + (accumulate ? c0[e] : T(0));
          EXPECT_EQ(c.to_vector(), want) << m << "x" << k << " times " << k << "x" << n
                                         << (accumulate ? " C+=" : " C=") << (small ? ", small path" : "");
        }
      }
    }
  }
  EXPECT_EQ(kernels::detail::small_product_plan<T>(dense_gemm(MR + 1, NR, 8), true, nc), 0) << "one last row";
  EXPECT_EQ(kernels::detail::small_product_plan<T>(dense_gemm(MR, NR, 8), false, nc), 0) << "A packed";
  EXPECT_EQ(kernels::detail::small_product_plan<T>(dense_gemm(MR, 2 * NR, 8), true, NR), 0) << "past NC";
}

TEST(GemmHostSmall, TakesTheSmallestProductsExactly) {
  expect_small_products_exact<float>();
  expect_small_products_exact<double>();
}

// The vendor the blocking rule keys on, against the kernel's own record of CPUID's vendor string.
TEST(GemmHostBlocking, VendorIsTheKernelsAndSizesTheABlock) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, vendor;
  while (vendor.empty() && std::getline(cpuinfo, line)) {
    if (line.rfind("vendor_id", 0) == 0) vendor = line.substr(line.find(':') + 2);
  }
  if (vendor.empty()) GTEST_SKIP() << "no vendor_id in /proc/cpuinfo (not x86 Linux)";
  EXPECT_EQ(cpu_is_intel(), vendor == "GenuineIntel") << "vendor_id " << vendor;

  // Intel: the A block fills more than a quarter of L2 (half, less one tile's rounding) unless
  // the row cap holds it; elsewhere it stays within an eighth of L2 (gemm_host.hpp).
  const auto b = kernels::detail::host_blocking<double>();
  const std::int64_t block = b.mc * b.kc * static_cast<std::int64_t>(sizeof(double)), l2 = cpu_caches().l2;
  if (cpu_is_intel()) {
    EXPECT_TRUE(block > l2 / 4 ||
                b.mc > kernels::detail::kIntelBlockRows - kernels::detail::HostTile<double>::MR)
        << "MC " << b.mc << ", KC " << b.kc << ", L2 " << l2;
    EXPECT_LE(block, l2 / 2);
  } else {
    EXPECT_LE(block, std::max<std::int64_t>(l2 / 8, kernels::detail::HostTile<double>::MR * b.kc * 8));
  }
  // One pass (KC = k) to a quarter past kOnePassDepth only where L2 has 1 MiB and KC is
  // shallower than kOnePassDepth; elsewhere KC.
  for (const auto& blocking : {b, kernels::detail::host_blocking<float>()}) {
    EXPECT_EQ(blocking.one_pass_k, l2 >= (1 << 20) && blocking.kc < kernels::detail::kOnePassDepth
                                       ? kernels::detail::kOnePassDepth * 5 / 4
                                       : blocking.kc)
        << "KC " << blocking.kc << ", L2 " << l2;
  }
}

}  // namespace
}  // namespace minigpu
