// Sample statistics of repetition times.
#pragma once

#include "io/results.hpp"

#include <vector>

namespace minigpu {

/// min, median (mean of the middle two for even counts), mean, max, coefficient of variation
/// and the median's 95 % confidence interval (see Stats); throws on empty.
Stats summarize(std::vector<double> samples);

}  // namespace minigpu
