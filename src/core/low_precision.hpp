// bfloat16 and float16 as storage types: 16-bit patterns with the layout cuBLAS (__nv_bfloat16,
// __half), oneDNN and PyTorch use, converted to and from float with round to nearest, ties to
// even; arithmetic happens in float, the accumulation type mixed precision uses. Our own types,
// not Kokkos's bhalf_t/half_t: Kokkos 3.4 (the compatibility build) has no bhalf_t and makes
// half_t a plain float on the host, which would store 4 bytes and round nothing. On a host
// target with F16C, float16's conversions are its instructions (vcvtps2ph, vcvtph2ps: the same
// rounding, one instruction instead of a dozen with branches); device code keeps the portable path.
#pragma once

#include "core/shape.hpp"

#include <Kokkos_Macros.hpp>

#include <cstdint>
#include <cstring>

#if defined(__F16C__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && \
    !defined(__SYCL_DEVICE_ONLY__)
#include <immintrin.h>
#define MINIGPU_F16C 1
#endif

namespace minigpu {

namespace detail {
// HIP's device compiler rejects std::memcpy (a host function) in device code; its builtin is the
// same bit copy, and folds to a register move as memcpy does.
#if defined(__HIP_DEVICE_COMPILE__)
#define MINIGPU_BIT_COPY __builtin_memcpy
#else
#define MINIGPU_BIT_COPY std::memcpy
#endif
KOKKOS_INLINE_FUNCTION std::uint32_t float_bits(float f) {
  std::uint32_t u;
  MINIGPU_BIT_COPY(&u, &f, sizeof u);
  return u;
}
KOKKOS_INLINE_FUNCTION float bits_float(std::uint32_t u) {
  float f;
  MINIGPU_BIT_COPY(&f, &u, sizeof f);
  return f;
}
#undef MINIGPU_BIT_COPY
}  // namespace detail

/// 1 sign, 8 exponent, 7 mantissa bits: float's range, 3 significant decimal digits.
struct bfloat16 {
  std::uint16_t bits = 0;
  bfloat16() = default;
  KOKKOS_INLINE_FUNCTION explicit bfloat16(float f) {
    std::uint32_t u = detail::float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN stays a (quiet) NaN
      bits = static_cast<std::uint16_t>((u >> 16) | 0x40u);
      return;
    }
    u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even; overflow carries to inf
    bits = static_cast<std::uint16_t>(u >> 16);
  }
  KOKKOS_INLINE_FUNCTION explicit bfloat16(double d) : bfloat16(static_cast<float>(d)) {}
  KOKKOS_INLINE_FUNCTION explicit bfloat16(int i) : bfloat16(static_cast<float>(i)) {}
  KOKKOS_INLINE_FUNCTION explicit bfloat16(std::int64_t i) : bfloat16(static_cast<float>(i)) {}
  KOKKOS_INLINE_FUNCTION operator float() const { return detail::bits_float(std::uint32_t(bits) << 16); }
};

/// IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits; largest finite 65504, subnormals from 2^-24.
struct float16 {
  std::uint16_t bits = 0;
  float16() = default;
  KOKKOS_INLINE_FUNCTION explicit float16(float f) {
#if defined(MINIGPU_F16C)
    bits = _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
#else
    const std::uint32_t u = detail::float_bits(f);
    const std::uint32_t sign = (u >> 16) & 0x8000u, x = u & 0x7fffffffu;
    std::uint32_t h;
    if (x > 0x7f800000u) {
      h = 0x7e00u;  // NaN
    } else if (x >= 0x477ff000u) {
      h = 0x7c00u;                  // 65520 and above round to infinity
    } else if (x >= 0x38800000u) {  // normal in binary16: rebias the exponent, round 13 bits away
      h = ((x - 0x38000000u) >> 13);
      const std::uint32_t rest = x & 0x1fffu;
      h += (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ? 1u : 0u;
    } else {  // subnormal (or zero): the value in units of 2^-24, rounded
      const int shift = 126 - static_cast<int>(x >> 23);
      const std::uint32_t m = (x & 0x7fffffu) | 0x800000u;
      if (shift > 24) {
        h = 0;
      } else {
        h = m >> shift;
        const std::uint32_t rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
        h += (rest > half || (rest == half && (h & 1u))) ? 1u : 0u;
      }
    }
    bits = static_cast<std::uint16_t>(sign | h);
#endif
  }
  KOKKOS_INLINE_FUNCTION explicit float16(double d) : float16(static_cast<float>(d)) {}
  KOKKOS_INLINE_FUNCTION explicit float16(int i) : float16(static_cast<float>(i)) {}
  KOKKOS_INLINE_FUNCTION explicit float16(std::int64_t i) : float16(static_cast<float>(i)) {}
  KOKKOS_INLINE_FUNCTION operator float() const {
#if defined(MINIGPU_F16C)
    return _cvtsh_ss(bits);
#else
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t e = (bits >> 10) & 0x1fu, m = bits & 0x3ffu;
    if (e == 0) {  // zero or subnormal: m · 2^-24, exact in float
      const float v = static_cast<float>(m) * 5.9604644775390625e-8f;
      return detail::bits_float(detail::float_bits(v) | sign);
    }
    if (e == 31) return detail::bits_float(sign | 0x7f800000u | (m << 13));
    return detail::bits_float(sign | ((e + 112u) << 23) | (m << 13));
#endif
  }
};

/// The type a product of T accumulates in: float for the 16-bit types (as cuBLAS's
/// CUBLAS_COMPUTE_32F and PyTorch do), T itself otherwise.
template <class T>
struct accumulator_of {
  using type = T;
};
template <>
struct accumulator_of<bfloat16> {
  using type = float;
};
template <>
struct accumulator_of<float16> {
  using type = float;
};
template <class T>
using accumulator_t = typename accumulator_of<T>::type;

template <>
struct dtype_of<bfloat16> {
  static constexpr DType value = DType::bf16;
};
template <>
struct dtype_of<float16> {
  static constexpr DType value = DType::f16;
};

}  // namespace minigpu
