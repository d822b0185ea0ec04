// Independent checks of a matrix product C = A·B: an exact host triple loop for small
// sizes, the identity C·v = A·(B·v) with double matvecs on the device for any size, and a
// sample of rows against host inner products in double for inputs of any value.
#pragma once

#include "core/dispatch.hpp"
#include "core/host_pages.hpp"
#include "core/reference_error.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/fill_integers.hpp"
#include "kernels/matvec.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace minigpu::kernels {

/// Entries of C that differ from a host triple loop over the same A and B, compared exactly
/// (so meant for inputs whose products are exact, such as fill_small_integers).
template <class CView, class AView, class BView>
std::int64_t matmul_mismatches_host(const CView& c, const AView& a, const BView& b, std::int64_t m,
                                    std::int64_t n, std::int64_t k) {
  using T = typename CView::non_const_value_type;
  const auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  std::vector<T> row(static_cast<std::size_t>(n));
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), T(0));
    for (std::int64_t p = 0; p < k; ++p) {
      const T aip = ha(i * k + p);
      for (std::int64_t j = 0; j < n; ++j) row[j] += aip * hb(p * n + j);
    }
    for (std::int64_t j = 0; j < n; ++j) wrong += hc(i * n + j) != row[j] ? 1 : 0;
  }
  return wrong;
}

/// max_i |(C·v)_i - (A·(B·v))_i| / max_i |(A·(B·v))_i| for a deterministic v in [-1, 1):
/// O(n²) work instead of the product's O(n³), all in double on C's device.
template <class CView, class AView, class BView>
double matmul_identity_error(const CView& c, const AView& a, const BView& b, std::int64_t m, std::int64_t n,
                             std::int64_t k, std::uint64_t seed = 7) {
  using Mem = typename CView::memory_space;
  Kokkos::View<double*, Mem> v("minigpu::check_v", n), bv("minigpu::check_bv", k);
  Kokkos::View<double*, Mem> abv("minigpu::check_abv", m), cv("minigpu::check_cv", m);
  fill_uniform(v, seed, -1.0, 1.0);
  matvec(bv, b, v, k, n);
  matvec(abv, a, bv, m, k);
  matvec(cv, c, v, m, n);
  const auto h_abv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), abv);
  const auto h_cv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cv);
  double diff = 0, scale = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    diff = std::max(diff, std::abs(h_cv(i) - h_abv(i)));
    scale = std::max(scale, std::abs(h_abv(i)));
  }
  if (std::isnan(diff)) return std::numeric_limits<double>::infinity();
  return scale > 0 ? diff / scale : diff;
}

/// How far C is from A·B computed in double, over the rows sampled_rows_errors visits.
struct ProductError {
  double check = 0;      ///< max |C − R| / (1 + |R|): what the precision's bound applies to
  ReferenceError error;  ///< what a row reports of it
};

/// ProductError of n×n row-major C against R = A·B, each R(i,j) a host inner product in
/// double, over every row i that is a multiple of max(1, n/8): a check for inputs whose
/// products are not exact, at 8/n of the product's cost, in row order (B streams, n = 10000
/// stays seconds). NaN in every field once an entry is NaN.
template <class CView, class AView, class BView>
ProductError sampled_rows_errors(const CView& c, const AView& a, const BView& b, std::int64_t n) {
  const auto ah = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  const auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  const auto ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  ProductError e;
  double diff2 = 0, ref2 = 0, max_diff = 0, sum_ref = 0, count = 0;
  bool nan = false;
  std::vector<double> want(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; i += std::max<std::int64_t>(1, n / 8)) {
    std::fill(want.begin(), want.end(), 0.0);
    for (std::int64_t p = 0; p < n; ++p) {
      const double aip = double(ah(i * n + p));
      for (std::int64_t j = 0; j < n; ++j) want[j] += aip * double(bh(p * n + j));
    }
    for (std::int64_t j = 0; j < n; ++j) {
      const double d = std::abs(double(ch(i * n + j)) - want[j]), r = std::abs(want[j]);
      nan = nan || std::isnan(d);
      e.check = std::max(e.check, d / (1 + r));
      max_diff = std::max(max_diff, d);
      diff2 += d * d, ref2 += r * r, sum_ref += r, count += 1;
    }
  }
  if (nan) return {std::nan(""), std::nan(""), std::nan("")};
  e.error.max_abs_rel = sum_ref > 0 ? max_diff / (sum_ref / count) : max_diff;
  e.error.frobenius_rel = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return e;
}

/// ProductError::check alone.
template <class CView, class AView, class BView>
double sampled_rows_error(const CView& c, const AView& a, const BView& b, std::int64_t n) {
  return sampled_rows_errors(c, a, b, n).check;
}

/// The bound on sampled_rows_error for a product of non-negative A and B (k terms) summed in
/// float and stored in `storage`: C's one rounding (unit_roundoff), float's γ_k = k·u/(1 − k·u)
/// for any order of summation, and `input_error`, the relative error each product's inputs
/// bring into it (0 when the reference multiplies the very values stored). u is float's ulp,
/// 2^-23, not its roundoff: it covers the truncating adders of tensor cores too.
inline double mixed_product_bound(DType storage, std::int64_t k, double input_error = 0) {
  const double g = static_cast<double>(k) * std::ldexp(1.0, -23);
  const double gamma = g / (1 - g), u = unit_roundoff(storage);
  return u + (1 + u) * ((1 + input_error) * (1 + gamma) - 1);
}

/// A, B and C stored in a 16-bit type and summed in float. A product summed in the 16-bit
/// type itself errs by up to k times its roundoff, and fails it.
inline double low_precision_product_bound(DType storage, std::int64_t k) {
  return mixed_product_bound(storage, k);
}

/// float or double A, B and C summed in their own type: C's rounding and γ_k in T's ulp (as
/// mixed_product_bound takes float's), for any order of summation; for double, the reference's
/// own sums in double add their γ_k.
template <class T>
double own_type_product_bound(std::int64_t k) {
  const double ulp = std::numeric_limits<T>::epsilon(), g = static_cast<double>(k) * ulp;
  const double gamma = g / (1 - g), u = ulp / 2;
  return u + (1 + u) * gamma + (std::is_same_v<T, double> ? gamma : 0.0);
}

/// Float A, B and C whose products' inputs are cut to TF32 (10 stored mantissa bits), rounded
/// or truncated: up to one TF32 ulp, 2^-10, each, so (1 + 2^-10)² − 1 per product.
inline double tf32_product_bound(std::int64_t k) {
  const double ulp = std::ldexp(1.0, -10);
  return mixed_product_bound(DType::f32, k, (1 + ulp) * (1 + ulp) - 1);
}

/// The bound on sampled_rows_error for T's product of inputs uniform in [0, 1]: 16-bit
/// storage's, TF32's (`tf32`: float32 through TF32), or T's own.
template <class T>
double uniform_product_bound(std::int64_t k, bool tf32) {
  if constexpr (sizeof(T) == 2) {
    return low_precision_product_bound(dtype_of<T>::value, k);
  } else {
    return tf32 ? tf32_product_bound(k) : own_type_product_bound<T>(k);
  }
}

/// An n×n operand of a product, row-major and zeroed: on huge pages where it is large enough
/// (core/host_pages.hpp), as the host GEMM packs it faster there.
template <class T, class Mem>
Kokkos::View<T*, Mem> product_operand(const std::string& label, std::int64_t n) {
  return large_array_view<T, Mem>(label, n * n);
}

/// A product's inputs: uniform in [0, 1] (`uniform`), with all of float's or double's mantissa
/// random and 16-bit storage rounded from float; or integers in [-2, 2], whose products and
/// sums are exact in float and double.
template <class View>
void fill_product_inputs(const View& a, const View& b, bool uniform) {
  using Fill = std::conditional_t<sizeof(typename View::non_const_value_type) >= 4,
                                  typename View::non_const_value_type, float>;
  if (uniform) {
    fill_uniform(a, 1, Fill(0), Fill(1));
    fill_uniform(b, 2, Fill(0), Fill(1));
  } else {
    fill_small_integers(a, 1);
    fill_small_integers(b, 2);
  }
}

/// Tolerance for matmul_identity_error on small-integer inputs of inner size k. While every
/// partial sum fits T's mantissa (|sum| <= 4k for entries in [-2, 2]) C is exact in either
/// dtype and only the double matvecs round; beyond that T's own rounding of C counts.
template <class T>
double matmul_identity_tolerance(std::int64_t k) {
  const double n = static_cast<double>(std::max<std::int64_t>(k, 1));
  const bool exact = 4.0 * n < std::ldexp(1.0, std::numeric_limits<T>::digits);
  return exact ? 16.0 * n * DBL_EPSILON : 4.0 * n * std::numeric_limits<T>::epsilon();
}

/// The same for a dtype known at run time.
inline double matmul_identity_tolerance(DType dtype, std::int64_t k) {
  return with_dtype(dtype,
                    [&](auto type) { return matmul_identity_tolerance<typename decltype(type)::type>(k); });
}

}  // namespace minigpu::kernels
