// Order statistics by sorting: repetition counts are small.
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
  std::size_t l = 1;
  double tail = 0, term = std::pow(0.5, static_cast<double>(n));  // P(B = 0)
  for (std::size_t k = 0; k < n / 2; ++k) {
    tail += term;  // P(B <= k)
    if (tail > 0.025) break;
    l = k + 1;
    term *= static_cast<double>(n - k) / static_cast<double>(k + 1);
  }
  s.median_ci_low = samples[l - 1];
  s.median_ci_high = samples[n - l];
  return s;
}

std::optional<Straggler> find_straggler(const std::vector<double>& rank_means) {
  if (rank_means.size() < 2) return std::nullopt;
  const auto slowest = std::max_element(rank_means.begin(), rank_means.end()) - rank_means.begin();
  double next = 0;
  for (std::size_t r = 0; r < rank_means.size(); ++r) {
    if (static_cast<std::ptrdiff_t>(r) != slowest) next = std::max(next, rank_means[r]);
  }
  const double mine = rank_means[static_cast<std::size_t>(slowest)];
  if (mine - next < kStragglerGapS || mine < kStragglerRatio * next) return std::nullopt;
  return Straggler{static_cast<int>(slowest), next > 0 ? mine / next : 0};
}

}  // namespace minigpu
