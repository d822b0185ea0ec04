// Order statistics by sorting (a million repetitions sort in a tenth of a second).
#include "engine/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace minigpu {

Stats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  Stats s;
  s.min = samples.front();
  s.max = samples.back();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  if (n > 1 && s.mean > 0) {
    double squares = 0;
    for (double x : samples) squares += (x - s.mean) * (x - s.mean);
    s.cv = std::sqrt(squares / static_cast<double>(n - 1)) / s.mean;
  }
  // The largest l with P(B <= l-1) <= 2.5 %, B ~ Binomial(n, 1/2): then [x(l), x(n+1-l)]
  // covers the median with probability >= 95 %. l = 1 (min, max) when none qualifies.
  // P(B = k) in logarithms: 0.5^n underflows a double beyond n = 1074, and a tail summed from
  // zeros would take l to n/2, an interval of one point.
  std::size_t l = 1;
  const double ln_half = std::log(0.5);
  double tail = 0, log_term = static_cast<double>(n) * ln_half;  // ln P(B = 0)
  for (std::size_t k = 0; k < n / 2; ++k) {
    tail += std::exp(log_term);  // P(B <= k)
    if (tail > 0.025) break;
    l = k + 1;
    log_term += std::log(static_cast<double>(n - k) / static_cast<double>(k + 1));
  }
  s.median_ci_low = samples[l - 1];
  s.median_ci_high = samples[n - l];
  // Ties (a coarse clock) can put both ends on one value while the samples differ: the
  // interval then reaches the nearest different samples, as the data cannot place the
  // median more finely than that.
  if (s.median_ci_low == s.median_ci_high && s.min < s.max) {
    const auto first = std::lower_bound(samples.begin(), samples.end(), s.median_ci_low);
    const auto past = std::upper_bound(samples.begin(), samples.end(), s.median_ci_high);
    if (first != samples.begin()) s.median_ci_low = *(first - 1);
    if (past != samples.end()) s.median_ci_high = *past;
  }
  return s;
}

std::optional<Straggler> find_straggler(const std::vector<double>& rank_means,
                                        const std::vector<bool>& works) {
  std::vector<std::size_t> working;
  for (std::size_t r = 0; r < rank_means.size(); ++r) {
    if (works.empty() || (r < works.size() && works[r])) working.push_back(r);
  }
  if (working.size() < 2) return std::nullopt;
  const auto slower = [&](std::size_t a, std::size_t b) { return rank_means[a] < rank_means[b]; };
  const std::size_t slowest = *std::max_element(working.begin(), working.end(), slower);
  double next = 0;
  for (std::size_t r : working) {
    if (r != slowest) next = std::max(next, rank_means[r]);
  }
  const double mine = rank_means[slowest];
  if (mine - next < kStragglerGapS || mine < kStragglerRatio * next) return std::nullopt;
  return Straggler{static_cast<int>(slowest), next > 0 ? mine / next : 0};
}

}  // namespace minigpu
