// Reference matrix multiply: C = A·B, one thread per C(i,j), the inner product in order.
// flops = 2·m·n·k. Correct by construction; fast variants live beside it. And on the host, in
// double: a normalised power iteration built on such products, the reference of device code
// that runs the same recurrence, with the relative difference their sequences are compared by.
#pragma once

#include "core/low_precision.hpp"
#include "core/reference_error.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace minigpu::kernels {

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// matmul_reference's body: C(i,j) = the inner product of A's row i and B's column j, in order.
template <class CView, class AView, class BView>
struct MatmulReferenceBody {
  CView c;
  AView a;
  BView b;
  std::int64_t n, k;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, const std::int64_t j) const {
    using T = typename CView::non_const_value_type;
    using Acc = accumulator_t<T>;
    Acc acc = 0;
    for (std::int64_t p = 0; p < k; ++p)
      acc += static_cast<Acc>(a(i * k + p)) * static_cast<Acc>(b(p * n + j));
    c(i * n + j) = static_cast<T>(acc);
  }
};

/// A is m×k, B is k×n, C is m×n, all row-major in flat Views. The inner product accumulates in
/// accumulator_t (float for the 16-bit types) and C is rounded once.
template <class CView, class AView, class BView>
void matmul_reference(const CView& c, const AView& a, const BView& b, std::int64_t m, std::int64_t n,
                      std::int64_t k) {
  using Policy = Kokkos::MDRangePolicy<typename CView::execution_space, Kokkos::Rank<2>,
                                       Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("gemm::reference", Policy({std::int64_t(0), std::int64_t(0)}, {m, n}),
                       MatmulReferenceBody<CView, AView, BView>{c, a, b, n, k});
}

/// ‖Y_t‖_F of the first `steps` steps of Y_t = A·X_t, X_{t+1} = Y_t / ‖Y_t‖_F, from n×n
/// row-major A and X_0 in host memory, in double whatever T is. A host function.
template <class T>
std::vector<double> power_iteration_norms(const T* a, const T* x0, std::int64_t n, std::int64_t steps) {
  std::vector<double> xs(x0, x0 + n * n), ys(xs.size()), out;
  for (std::int64_t t = 0; t < steps; ++t) {
    std::fill(ys.begin(), ys.end(), 0.0);
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t p = 0; p < n; ++p) {
        const double aip = a[i * n + p];
        for (std::int64_t j = 0; j < n; ++j) ys[i * n + j] += aip * xs[p * n + j];
      }
    }
    double sq = 0;
    for (double v : ys) sq += v * v;
    const double norm = std::sqrt(sq);
    out.push_back(norm);
    for (std::size_t e = 0; e < xs.size(); ++e) xs[e] = ys[e] / norm;
  }
  return out;
}

/// max_t |x_t − y_t| / |y_t| over the first `count` entries (y_t = 0 counts as 1e-300);
/// infinity when any of them is not finite, so a sequence that overflowed never passes.
inline double max_rel_diff(const std::vector<double>& x, const std::vector<double>& y, std::size_t count) {
  double worst = 0;
  for (std::size_t t = 0; t < count; ++t) {
    if (!std::isfinite(x[t]) || !std::isfinite(y[t])) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, std::abs(x[t] - y[t]) / std::max(std::abs(y[t]), 1e-300));
  }
  return worst;
}

/// The first `count` entries of x against a reference y: the largest error relative to each
/// entry (what a check bounds) and, as a product's errors are reported (PyTorch's TF32 notes),
/// the largest relative to the mean |y| and the relative 2-norm. Infinite where x is not finite.
struct SequenceError {
  double max_rel = 0;    ///< max |x − y| / |y|: what a check bounds
  ReferenceError error;  ///< what a row reports of it
};
inline SequenceError sequence_errors(const std::vector<double>& x, const std::vector<double>& y,
                                     std::size_t count) {
  SequenceError e;
  double sum = 0, worst = 0, diff2 = 0, ref2 = 0;
  for (std::size_t t = 0; t < count; ++t) {
    const double d = std::abs(x[t] - y[t]);
    if (!std::isfinite(x[t]) || !std::isfinite(y[t])) {
      const double inf = std::numeric_limits<double>::infinity();
      return {inf, {inf, inf}};
    }
    e.max_rel = std::max(e.max_rel, d / std::max(std::abs(y[t]), 1e-300));  // as max_rel_diff
    sum += std::abs(y[t]), worst = std::max(worst, d), diff2 += d * d, ref2 += y[t] * y[t];
  }
  e.error.max_abs_rel = sum > 0 ? worst / (sum / static_cast<double>(count)) : worst;
  e.error.frobenius_rel = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return e;
}

}  // namespace minigpu::kernels
