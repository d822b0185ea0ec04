// Sample statistics of repetition times.
#pragma once

#include "io/results.hpp"

#include <optional>
#include <vector>

namespace minigpu {

/// min, median (mean of the middle two for even counts), mean, max, coefficient of variation
/// and the median's 95 % confidence interval (see Stats); throws on empty.
Stats summarize(std::vector<double> samples);

/// A rank far behind all the others: its mean repetition time at least kStragglerRatio times
/// the next slowest rank's and kStragglerGapS longer. Only ranks that work in the case take
/// part (`works`, empty: all): a rank that idles by design, as in a product on fewer ranks
/// than the job, is no yardstick for one that works.
struct Straggler {
  int rank = 0;      ///< its rank in the job
  double ratio = 0;  ///< its mean over the next slowest working rank's
};
inline constexpr double kStragglerRatio = 1.5, kStragglerGapS = 1e-3;
std::optional<Straggler> find_straggler(const std::vector<double>& rank_means,
                                        const std::vector<bool>& works = {});

}  // namespace minigpu
