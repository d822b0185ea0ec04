// How a Linear(in, 1) trained by SgdTrainer is judged: against reference_sgd, the host's SGD in
// double from the same data and start, within a tolerance per data type (with, for 16-bit data,
// the gap rounding opens between the two), the losses the host received being the device's own
// log; recovering the chapter's w* and b* is reported, not required.
#pragma once

#include "core/low_precision.hpp"
#include "core/reference_error.hpp"
#include "kernels/matmul_reference.hpp"
#include "ops/linear_sgd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace minigpu {

/// How a trained run compares with reference_sgd from the same data and start.
struct SgdComparison {
  double parameters = 0;  ///< max relative error of w and b, each over max(1, |reference|)
  double losses = 0;      ///< max relative error of the losses, each over |reference| + 1e-4
  bool same_log = true;   ///< the host's losses are the device's own log, bit for bit
  /// The mean loss of the first and of the last epoch (of the halves for one epoch).
  double first_mean = 0, last_mean = 0;
};

/// A run's parameters w and b, the losses the host received (`host_losses`, one per step) and
/// the device's own loss log, against `ref`. The loss floor sits near the noise level of the
/// loss, where relative error stops meaning anything. `residual_gap` bounds how far the run's
/// residuals may sit from the reference's for a reason other than arithmetic (16-bit forward
/// weights rounded to neighbouring values, say): with |e' − e| ≤ D, a batch's loss
/// mean(e²)/2 moves by at most sqrt(2L)·D + D²/2, which each loss's error discounts.
template <class T>
SgdComparison compare_with_reference(const std::vector<T>& w, T b, const T* host_losses,
                                     const std::vector<T>& device_log, std::int64_t epochs,
                                     const SgdReference& ref, double residual_gap = 0) {
  SgdComparison c;
  c.parameters = std::abs(double(b) - ref.b) / std::max(1.0, std::abs(ref.b));
  for (std::size_t j = 0; j < w.size(); ++j)
    c.parameters =
        std::max(c.parameters, std::abs(double(w[j]) - ref.w[j]) / std::max(1.0, std::abs(ref.w[j])));
  const auto steps = static_cast<std::int64_t>(device_log.size());
  for (std::int64_t i = 0; i < steps; ++i) {
    c.same_log = c.same_log && host_losses[i] == device_log[i];
    const double allowed =
        std::sqrt(2 * std::abs(ref.losses[i])) * residual_gap + residual_gap * residual_gap / 2;
    const double excess = std::max(0.0, std::abs(host_losses[i] - ref.losses[i]) - allowed);
    c.losses = std::max(c.losses, excess / (std::abs(ref.losses[i]) + 1e-4));
  }
  const std::int64_t window = epochs > 1 ? steps / epochs : std::max<std::int64_t>(1, steps / 2);
  for (std::int64_t i = 0; i < window; ++i) {
    c.first_mean += host_losses[i] / double(window);
    c.last_mean += host_losses[steps - window + i] / double(window);
  }
  return c;
}

/// Parameters' and losses' relative error allowed against the host's SGD in double. The host
/// rounds its forward weights as 16-bit training does, but where a master weight sits at a
/// rounding boundary the two sides may round to neighbours one ulp (2u·|w|) apart; SGD damps
/// the offset that adds (at most 0.74 u measured in float16 and bfloat16 over five settings), so
/// 8u leaves room and still fails a wrong gradient, which is off by O(1).
template <class T>
double sgd_tolerance() {
  if constexpr (sizeof(T) == 2) return 8 * unit_roundoff(dtype_of<T>::value);
  return sizeof(T) == 4 ? 1e-3 : 1e-9;
}

/// How far 16-bit forward weights rounded to neighbours (see sgd_tolerance) move a residual:
/// Σ_j |x_ij|·ulp(w_j) with |x| ≤ 1 and |w_j| near |w*_j|. Where a batch's loss sits at the
/// floor 16-bit rounding leaves, this allows a loss its own size: there the check is loose.
template <class T>
double residual_gap(const std::vector<double>& w_true) {
  if constexpr (sizeof(T) != 2) return 0.0;
  double gap = 0;
  for (double w : w_true) gap += 2 * unit_roundoff(dtype_of<T>::value) * std::max(1.0, std::abs(w));
  return gap;
}

/// A verdict on a training run, with the line that explains it.
struct SgdVerdict {
  bool passed = false;
  std::string detail;
  /// The trained w and b against float64's SGD from the same stored data with unrounded
  /// forward weights, as a product's error is given: what the precision costs.
  ReferenceError error;
};

/// Trained parameters w, b (of type P), the losses the host received and the device's own log,
/// from `data` and the options `o` the run trained with, against reference_sgd of the same.
/// Recovering the chapter's w* and b* (to 0.05) is reported, since a short training (little
/// data, few epochs, small lr) honestly stops short of them.
template <class T, class P>
SgdVerdict judge_training(const std::vector<P>& w, P b, const P* host_losses,
                          const std::vector<P>& device_log, const SgdOptions& o,
                          const RegressionData<T>& data) {
  const auto in = static_cast<std::int64_t>(w.size());
  const SgdReference rounding = reference_sgd(data, o);
  const SgdComparison c = compare_with_reference(w, b, host_losses, device_log, o.epochs, rounding,
                                                 residual_gap<T>(chapter_weights<double>(in)));
  // Only 16-bit data rounds its forward weights: float's two references are one SGD.
  const SgdReference exact = sizeof(T) == 2 ? reference_sgd(data, o, /*round_forward=*/false) : rounding;
  std::vector<double> got(w.begin(), w.end()), want(exact.w);
  got.push_back(double(b));
  want.push_back(exact.b);
  const ReferenceError error = kernels::sequence_errors(got, want, got.size()).error;
  // NaN compares false: parameters that overflowed (a diverging lr) are no result.
  if (!std::isfinite(c.parameters))
    return {false, "parameters are not finite: training diverged (lower lr)", error};
  constexpr double kRecovered = 0.05;
  const std::vector<P> w_true = chapter_weights<P>(in);
  double w_err = 0;
  for (std::size_t j = 0; j < w.size(); ++j)
    w_err = std::max(w_err, std::abs(double(w[j]) - double(w_true[j])));
  const double b_err = std::abs(double(b) - kChapterBias), tol = sgd_tolerance<T>();
  const bool recovered = w_err <= kRecovered && b_err <= kRecovered;
  char line[512];
  std::snprintf(
      line, sizeof line,
      "parameters vs host SGD max rel err %.1e; mean loss %.3g -> %.3g; loss log vs host SGD max rel err%s "
      "%.1e; %s w*, b* (max|w-w*| %.1e, |b-b*| %.1e)%s",
      c.parameters, c.first_mean, c.last_mean, sizeof(T) == 2 ? " beyond the rounding gap" : "", c.losses,
      recovered ? "recovered" : "stopped short of", w_err, b_err, recovered ? "" : ": train longer");
  std::string detail = line;
  if (o.sync_loss || !c.same_log)
    detail += c.same_log ? "; host copies = device log" : "; host copies DIFFER from device log";
  return {c.parameters <= tol && c.same_log && c.losses <= tol, detail, error};
}

}  // namespace minigpu
