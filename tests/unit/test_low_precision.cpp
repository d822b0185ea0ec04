// bfloat16 and float16: conversions against an independent rounding (scaling and nearbyint in
// double, and GCC's _Float16 where it has one), the dtype names and roundoffs, the 16-bit
// matmul's check passing a product summed in float and failing one summed in the 16-bit type,
// and the host's bfloat16 GEMM against exact products summed in double.
#include "core/cpu_info.hpp"
#include "core/dispatch.hpp"
#include "core/low_precision.hpp"
#include "core/shape.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm_host.hpp"
#include "kernels/matmul_check.hpp"
#include "kernels/matmul_reference.hpp"

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace minigpu {
namespace {

/// f rounded to `digits` significant bits, ties to even, exponents from min_exp (gradual
/// underflow below it) and infinity from `overflow` (the first value that rounds past the
/// largest finite): what IEEE rounding to such a type gives, computed in double.
double rounded(float f, int digits, int min_exp, double overflow) {
  const double x = f;
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  if (std::abs(x) >= overflow) return std::copysign(std::numeric_limits<double>::infinity(), x);
  const int e = std::max(std::ilogb(x), min_exp);
  const int scale = digits - 1 - e;
  return std::ldexp(std::nearbyint(std::ldexp(x, scale)), -scale);  // FE_TONEAREST: ties to even
}

double as_bf16(float f) { return rounded(f, 8, -126, 0x1.ffp127); }  // max 0x1.fep127
double as_f16(float f) { return rounded(f, 11, -14, 65520.0); }

float float_of_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// Every kind of float: random bit patterns, and exact ties between neighbours of the 16-bit types.
std::vector<float> probes() {
  std::vector<float> out = {0.0f,
                            -0.0f,
                            1.0f,
                            -1.0f,
                            65504.0f,
                            65519.99f,
                            65520.0f,
                            1e30f,
                            3e38f,
                            5.96e-8f,
                            2.98e-8f,
                            1e-45f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::max()};
  std::mt19937 random(42);
  for (int i = 0; i < 400000; ++i) out.push_back(float_of_bits(static_cast<std::uint32_t>(random())));
  for (std::uint32_t m = 0; m < 4096; ++m) {
    out.push_back(float_of_bits(0x3f800000u | (m << 12) | 0x1000u));  // float16 ties near 1
    out.push_back(float_of_bits(0x3f800000u | (m << 16) | 0x8000u));  // bfloat16 ties near 1
    out.push_back(float_of_bits(0x33800000u | (m << 12)));            // float16 subnormals
  }
  return out;
}

TEST(LowPrecision, BFloat16RoundsToNearestEven) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  for (float f : probes()) {
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(f))));
      continue;
    }
    ASSERT_EQ(static_cast<double>(static_cast<float>(bfloat16(f))), as_bf16(f)) << std::hexfloat << f;
  }
}

TEST(LowPrecision, Float16RoundsToNearestEven) {
  for (float f : probes()) {
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(float16(f))));
      continue;
    }
    ASSERT_EQ(static_cast<double>(static_cast<float>(float16(f))), as_f16(f)) << std::hexfloat << f;
#if defined(__FLT16_MAX__)
    // The compiler's own binary16, bit for bit.
    const _Float16 native = static_cast<_Float16>(f);
    std::uint16_t bits;
    std::memcpy(&bits, &native, sizeof bits);
    ASSERT_EQ(float16(f).bits, bits) << std::hexfloat << f;
#endif
  }
}

TEST(LowPrecision, EveryPatternSurvivesARoundTrip) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    bfloat16 x;
    x.bits = static_cast<std::uint16_t>(b);
    float16 h;
    h.bits = static_cast<std::uint16_t>(b);
    const float xf = x, hf = h;
    if (std::isnan(xf)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(xf))));
    } else {
      ASSERT_EQ(bfloat16(xf).bits, b);
    }
    if (std::isnan(hf)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(float16(hf))));
    } else {
      ASSERT_EQ(float16(hf).bits, b);
    }
  }
  EXPECT_EQ(static_cast<float>(float16(65504.0f)), 65504.0f);
  EXPECT_EQ(float16(1.0f).bits, 0x3c00);
  EXPECT_EQ(bfloat16(1.0f).bits, 0x3f80);
}

TEST(LowPrecision, DtypesAreNamedSizedAndBounded) {
  EXPECT_EQ(parse_dtype("bf16"), DType::bf16);
  EXPECT_EQ(parse_dtype("half"), DType::f16);
  EXPECT_EQ(to_string(DType::bf16), "bfloat16");
  EXPECT_EQ(to_string(DType::f16), "float16");
  EXPECT_EQ(size_of(DType::bf16), 2u);
  EXPECT_EQ(size_of(DType::f16), 2u);
  EXPECT_TRUE(is_low_precision(DType::f16));
  EXPECT_FALSE(is_low_precision(DType::f32));
  // Half the gap above 1: 1 + 2u rounds to the next number, 1 + u (a tie) back to 1.
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f + 2 * static_cast<float>(unit_roundoff(DType::bf16)))),
            1.0078125f);
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f + static_cast<float>(unit_roundoff(DType::bf16)))), 1.0f);
  EXPECT_EQ(static_cast<float>(float16(1.0f + static_cast<float>(unit_roundoff(DType::f16)))), 1.0f);
  EXPECT_EQ(unit_roundoff(DType::f32), std::numeric_limits<float>::epsilon() / 2);
  EXPECT_EQ(sizeof(bfloat16), 2u);
  EXPECT_TRUE((std::is_same_v<accumulator_t<bfloat16>, float>));
  EXPECT_TRUE((std::is_same_v<accumulator_t<double>, double>));
  EXPECT_THROW(with_dtype(DType::bf16, [](auto) { return 0; }), std::logic_error);
}

/// C = A·B accumulated in S itself: the fast-because-wrong product the checks must fail.
template <class S>
void product_accumulated_in_storage(const Kokkos::View<S*, Kokkos::HostSpace>& c,
                                    const Kokkos::View<S*, Kokkos::HostSpace>& a,
                                    const Kokkos::View<S*, Kokkos::HostSpace>& b, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      S acc(0.0f);
      for (std::int64_t p = 0; p < n; ++p)
        acc = S(static_cast<float>(acc) + float(a(i * n + p)) * float(b(p * n + j)));
      c(i * n + j) = acc;
    }
}

template <class S>
void checks_tell_float_accumulation_from_storage_accumulation(DType dtype) {
  for (std::int64_t n : {64, 256, 320}) {
    Kokkos::View<S*, Kokkos::HostSpace> a("test::A", n * n), b("test::B", n * n), c("test::C", n * n);
    kernels::fill_uniform(a, 1, 0.0f, 1.0f);
    kernels::fill_uniform(b, 2, 0.0f, 1.0f);
    kernels::matmul_reference(c, a, b, n, n, n);
    Kokkos::fence();
    const double bound = kernels::low_precision_product_bound(dtype, n);
    const double right = kernels::sampled_rows_error(c, a, b, n);
    EXPECT_LE(right, bound) << n;
    EXPECT_GT(right, 0.0) << "a 16-bit C rounds: an error of 0 means the check compared C with itself";
    product_accumulated_in_storage(c, a, b, n);
    EXPECT_GT(kernels::sampled_rows_error(c, a, b, n), 2 * bound) << n;
  }
}

TEST(LowPrecision, ChecksFailAProductAccumulatedInBFloat16) {
  checks_tell_float_accumulation_from_storage_accumulation<bfloat16>(DType::bf16);
}

TEST(LowPrecision, ChecksFailAProductAccumulatedInFloat16) {
  checks_tell_float_accumulation_from_storage_accumulation<float16>(DType::f16);
}

/// C = A·B in float from the inputs' leading bits only, as a TF32 tensor core takes them
/// (`keep` = 10 stored mantissa bits) or as a bfloat16 one would (7).
void product_of_truncated_inputs(const Kokkos::View<float*, Kokkos::HostSpace>& c,
                                 const Kokkos::View<float*, Kokkos::HostSpace>& a,
                                 const Kokkos::View<float*, Kokkos::HostSpace>& b, std::int64_t n, int keep) {
  const auto cut = [keep](float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    u &= ~((1u << (23 - keep)) - 1u);
    std::memcpy(&x, &u, sizeof x);
    return x;
  };
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (std::int64_t p = 0; p < n; ++p) acc += cut(a(i * n + p)) * cut(b(p * n + j));
      c(i * n + j) = acc;
    }
}

// TF32's bound passes a product whose inputs lost their last 13 bits (truncation, the worse of
// TF32's two conversions) and fails one whose inputs lost 16, as bfloat16 inputs would.
TEST(LowPrecision, Tf32BoundTellsTf32InputsFromBFloat16Inputs) {
  for (std::int64_t n : {64, 256}) {
    Kokkos::View<float*, Kokkos::HostSpace> a("test::A", n * n), b("test::B", n * n), c("test::C", n * n);
    kernels::fill_uniform(a, 1, 0.0f, 1.0f);
    kernels::fill_uniform(b, 2, 0.0f, 1.0f);
    Kokkos::fence();
    const double bound = kernels::tf32_product_bound(n);
    EXPECT_LT(bound, 2.1e-3) << "about two TF32 ulps (2^-10 each) and float's sums";
    product_of_truncated_inputs(c, a, b, n, 10);
    const double tf32 = kernels::sampled_rows_error(c, a, b, n);
    EXPECT_LE(tf32, bound) << n;
    EXPECT_GT(tf32, 1e-5) << "truncated inputs err: 0 would mean C was compared with itself";
    product_of_truncated_inputs(c, a, b, n, 7);
    EXPECT_GT(kernels::sampled_rows_error(c, a, b, n), bound) << n;
  }
}

// C's worst error against α·A·B + C0 summed exactly in double, over float summation's bound
// γ(k+1)·(|C0| + |α|·Σ|a||b|): at most 1 where C was summed in float from exact products; NaN
// where an element of C is. Unused where no bfloat16 GEMM builds (no AVX512_BF16 and no AMX).
[[maybe_unused]] double error_over_float_bound(const bfloat16* a, const bfloat16* b, const float* c,
                                               const float* c0, const GemmDims& d, float alpha) {
  const double u = std::ldexp(1.0, -24), ku = static_cast<double>(d.k + 1) * u, gamma = ku / (1 - ku);
  double worst = 0;
  for (std::int64_t i = 0; i < d.m; ++i)
    for (std::int64_t j = 0; j < d.n; ++j) {
      double exact = c0[i * d.ldc + j], scale = std::abs(exact);
      for (std::int64_t p = 0; p < d.k; ++p) {
        const double x = alpha * (float(a[i * d.lda + p]) * double(float(b[p * d.ldb + j])));
        exact += x;
        scale += std::abs(x);
      }
      const double e = std::abs(c[i * d.ldc + j] - exact) / (gamma * scale);
      if (!(e <= worst)) worst = e;  // a NaN too, which std::max would pass over
    }
  return worst;
}

/// A and B of S uniform in [-1, 1], and C = C0, uniform too where `accumulate` and zero
/// otherwise, each sized by d's leading dimensions.
template <class S>
struct GemmOperands {
  Kokkos::View<S*, Kokkos::HostSpace> a, b;
  Kokkos::View<float*, Kokkos::HostSpace> c, c0;
  GemmOperands(const GemmDims& d, bool accumulate)
      : a("test::A", d.m * d.lda),
        b("test::B", d.k * d.ldb),
        c("test::C", d.m * d.ldc),
        c0("test::C0", d.m * d.ldc) {
    kernels::fill_uniform(a, 1, -1.0f, 1.0f);
    kernels::fill_uniform(b, 2, -1.0f, 1.0f);
    if (accumulate) kernels::fill_uniform(c0, 3, -1.0f, 1.0f);
    Kokkos::fence();
    Kokkos::deep_copy(c, c0);
  }
  double error_over_bound(const GemmDims& d, float alpha) const {
    return error_over_float_bound(a.data(), b.data(), c.data(), c0.data(), d, alpha);
  }
};

// The host's bfloat16 GEMM (vdpbf16ps): each shape the loop nest cuts differently (A read in
// place, an odd k's padded pair, ragged m and n, a last panel of at most 16 columns, k across
// KC blocks, C += A·B, C = α·A·B (+ C) with α a power of two, so exact, a slab of C's columns
// per worker: 30 × 1050) against the exact products summed in double, within float summation's
// bound γ(k+1)·(|C0| + |α|·Σ|a||b|). A
// dropped or doubled pair, a C rounded to bfloat16 between KC blocks, or α left out or applied
// to C0 too, lands far outside it.
// S is bfloat16, the operand type, only where the kernel exists (Enabled): elsewhere gemm_host
// refuses bfloat16 at compile time, so the body must not be instantiated (an AVX2 build).
template <bool Enabled, class S = std::conditional_t<Enabled, bfloat16, float>>
void host_bf16_gemm_sums_exact_products() {
  if constexpr (!Enabled) {
    GTEST_SKIP() << "this build's CPU target has no AVX512_BF16";
  } else {
    struct Shape {
      std::int64_t m, n, k;
      bool accumulate;
      float alpha;
    };
    for (const Shape s : {Shape{12, 32, 64, false, 1}, Shape{13, 33, 63, false, 1},
                          Shape{100, 100, 100, false, 1}, Shape{7, 5, 3, true, 1}, Shape{50, 16, 1, false, 1},
                          Shape{40, 70, 1100, true, 1}, Shape{300, 200, 257, false, 1},
                          Shape{100, 100, 100, false, -0.25f}, Shape{40, 70, 1100, true, 0.5f},
                          Shape{20, 70, 1100, true, 0.5f}, Shape{30, 1050, 600, true, 0.5f}}) {
      const GemmDims d = dense_gemm(s.m, s.n, s.k);
      const GemmOperands<S> x(d, s.accumulate);
      kernels::gemm_host(x.c, x.a, x.b, d, s.accumulate, s.alpha == 1 ? nullptr : &s.alpha);
      EXPECT_LE(x.error_over_bound(d, s.alpha), 1.0)
          << s.m << "x" << s.n << "x" << s.k << (s.accumulate ? " C+=AB" : "") << " alpha " << s.alpha;
    }
  }
}

TEST(LowPrecision, HostBFloat16GemmSumsExactProductsInFloat) {
  host_bf16_gemm_sums_exact_products<kernels::kHostBf16Dot>();
}

/// Whether /proc/cpuinfo lists `flag` for the first CPU: the OS's word, apart from CPUID's.
[[maybe_unused]] bool cpuinfo_has(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0) return (line + " ").find(" " + flag + " ") != std::string::npos;
  }
  return false;
}

// The AMX kernel is there wherever the CPU has AMX-BF16 and the build can emit it: a build for an
// AMX Xeon that fell back to vdpbf16ps would run bfloat16 at an eighth of its rate, unnoticed.
TEST(LowPrecision, HostAmxIsTakenWhereTheCpuHasIt) {
#if defined(MINIGPU_HOST_AMX)
  EXPECT_EQ(host_amx_bf16(), cpuinfo_has("amx_bf16") && cpuinfo_has("amx_tile"));
#else
  EXPECT_FALSE(host_amx_bf16());
  GTEST_SKIP() << "this build's CPU target has no AMX-BF16";
#endif
}

// AMX's tiles (gemm_host_amx.hpp), called directly: whole 32×32 blocks, ragged ones (the last
// rows, columns and steps of k padded with zeros), one with A's, B's and C's rows longer than the
// product (a block of a larger matrix), several blocks of B's columns, C += A·B and α; and one
// through gemm_host; against exact products summed in double (error_over_float_bound). A tile
// read at the wrong stride, a swapped half of B's pairs, C's tiles stored in each other's place,
// padding that is not zero or an edge written twice land far outside the bound. A dimension
// under kAmxMinDim is declined, and C left as it was.
TEST(LowPrecision, HostAmxGemmSumsExactProductsInFloat) {
#if !defined(MINIGPU_HOST_AMX)  // nor vdpbf16ps, maybe: gemm_host refuses bfloat16 at compile time
  GTEST_SKIP() << "this build's CPU target has no AMX-BF16";
#else
  if (!host_amx_bf16()) GTEST_SKIP() << "no AMX-BF16 here (CPU or OS)";
  // Before each shape, NaN left in the packed panels and the padded copies of A: padding that
  // is not written as zeros reads as 0·NaN = NaN.
  const auto poison = [] {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Kokkos::View<bfloat16*, Kokkos::HostSpace> a("test::A", 250 * 2000), b("test::B", 2000 * 250);
    Kokkos::View<float*, Kokkos::HostSpace> c("test::C", 250 * 250);
    Kokkos::deep_copy(a, bfloat16(nan));
    Kokkos::deep_copy(b, bfloat16(nan));
    return kernels::gemm_host_amx<Kokkos::DefaultHostExecutionSpace>(c.data(), a.data(), b.data(),
                                                                     dense_gemm(250, 250, 2000), false, 1, 2);
  };
  struct Shape {
    GemmDims d;
    bool accumulate;
    float alpha;
    bool through_gemm_host = false;
  };
  const auto strided = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    GemmDims d = dense_gemm(m, n, k);
    d.lda += 32;
    d.ldb += 64;
    d.ldc += 96;
    return d;
  };
  for (const Shape s :
       {Shape{dense_gemm(32, 32, 32), false, 1}, Shape{dense_gemm(64, 96, 128), true, 1},
        Shape{dense_gemm(96, 64, 1056), false, -0.25f}, Shape{strided(64, 128, 96), true, 0.5f},
        Shape{dense_gemm(32, 576, 2048), false, 1}, Shape{dense_gemm(100, 70, 75), false, 1},
        Shape{dense_gemm(33, 65, 129), true, -0.25f}, Shape{strided(64, 40, 33), true, 0.5f},
        Shape{dense_gemm(1000, 40, 1000), true, 0.5f, true}}) {
    const GemmDims& d = s.d;
    const GemmOperands<bfloat16> x(d, s.accumulate);
    ASSERT_TRUE(poison());
    if (!s.through_gemm_host) {
      ASSERT_TRUE(kernels::gemm_host_amx<Kokkos::DefaultHostExecutionSpace>(
          x.c.data(), x.a.data(), x.b.data(), d, s.accumulate, s.alpha, 2));
    } else {
      kernels::gemm_host(x.c, x.a, x.b, d, s.accumulate, &s.alpha);
    }
    EXPECT_LE(x.error_over_bound(d, s.alpha), 1.0) << d.m << "x" << d.n << "x" << d.k << " lda " << d.lda
                                                   << (s.accumulate ? " C+=AB" : "") << " alpha " << s.alpha;
  }
  Kokkos::View<bfloat16*, Kokkos::HostSpace> a("test::A", 48 * 64), b("test::B", 64 * 64);
  Kokkos::View<float*, Kokkos::HostSpace> c("test::C", 48 * 64);
  Kokkos::deep_copy(c, 7.0f);
  EXPECT_FALSE(kernels::gemm_host_amx<Kokkos::DefaultHostExecutionSpace>(
      c.data(), a.data(), b.data(), dense_gemm(48, 64, 16), false, 1.0f, 1));
  EXPECT_EQ(c(0), 7.0f);
#endif
}

}  // namespace
}  // namespace minigpu
