// Phase boundaries fence, so asynchronous device work lands in the phase that launched it.
#include "engine/phase_clock.hpp"

#include <Kokkos_Core.hpp>

namespace minigpu {

void PhaseClock::restart() {
  phases_.clear();
  last_ = std::chrono::steady_clock::now();
}

void PhaseClock::end_phase(const std::string& name) {
  Kokkos::fence();
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  for (auto& [phase, total] : phases_) {
    if (phase == name) {
      total += seconds;
      return;
    }
  }
  phases_.emplace_back(name, seconds);
}

}  // namespace minigpu
