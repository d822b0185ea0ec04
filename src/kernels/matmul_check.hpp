// Independent checks of a matrix product C = A·B: an exact host triple loop for small
// sizes, the identity C·v = A·(B·v) with double matvecs on the device for any size, and a
// sample of rows against host inner products in double for inputs of any value.
#pragma once

#include "core/dispatch.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/matvec.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
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

/// max |C(i,j) − Σ_p A(i,p)·B(p,j)| / (1 + |Σ|) over every row i that is a multiple of
/// max(1, n/8) of n×n row-major C, each sum a host inner product in double: a check for inputs
/// whose products are not exact, at an eighth of the product's cost. NaN once an entry is NaN.
template <class CView, class AView, class BView>
double sampled_rows_error(const CView& c, const AView& a, const BView& b, std::int64_t n) {
  const auto ah = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  const auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  const auto ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  double worst = 0;
  for (std::int64_t i = 0; i < n; i += std::max<std::int64_t>(1, n / 8)) {
    for (std::int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (std::int64_t p = 0; p < n; ++p) want += double(ah(i * n + p)) * double(bh(p * n + j));
      const double err = std::abs(double(ch(i * n + j)) - want) / (1 + std::abs(want));
      worst = std::isnan(err) ? err : std::max(worst, err);
    }
  }
  return worst;
}

/// The bound on sampled_rows_error for a product of non-negative A and B (k terms) stored in
/// a 16-bit type and summed in float: one rounding to the storage type (unit_roundoff) on top of
/// float's γ_k = k·u/(1 − k·u) for any order of summation. A product summed in the 16-bit type
/// itself errs by up to k times its roundoff, and fails it.
inline double low_precision_product_bound(DType storage, std::int64_t k) {
  const double g = static_cast<double>(k) * unit_roundoff(DType::f32);
  const double gamma = g / (1 - g);
  return unit_roundoff(storage) + gamma * (1 + unit_roundoff(storage));
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
