// Phase boundaries fence, so asynchronous device work lands in the phase that launched it.
#include "engine/phase_clock.hpp"

#include <Kokkos_Core.hpp>

namespace minigpu {

void PhaseClock::restart() {
  phases_.clear();
  last_ = Clock::now();
}

void PhaseClock::end_phase(const std::string& name) {
  Kokkos::fence();
  const double seconds = seconds_since(last_);
  last_ = Clock::now();
  for (auto& [phase, total] : phases_) {
    if (phase == name) {
      total += seconds;
      return;
    }
  }
  phases_.emplace_back(name, seconds);
}

}  // namespace minigpu
