// Runner-owned clock for splitting one repetition into named phases (compute, communication).
// Experiments only label phase boundaries; the clock fences and measures.
#pragma once

#include "core/stopwatch.hpp"

#include <string>
#include <utility>
#include <vector>

namespace minigpu {

class PhaseClock {
 public:
  /// Starts a repetition: forgets earlier phases and starts the first one now.
  void restart();
  /// Ends the current phase as `name` (after Kokkos::fence(), so device work is counted)
  /// and starts the next. Repeated names accumulate within a repetition.
  void end_phase(const std::string& name);
  /// Seconds per phase name, in first-seen order, for the current repetition.
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }

 private:
  Clock::time_point last_;
  std::vector<std::pair<std::string, double>> phases_;
};

}  // namespace minigpu
