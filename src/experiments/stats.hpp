// Sample statistics of repetition times.
#pragma once

#include "io/results.hpp"

#include <vector>

namespace minigpu {

/// min, median (mean of the middle two for even counts), mean and max; throws on empty.
Stats summarize(std::vector<double> samples);

}  // namespace minigpu
