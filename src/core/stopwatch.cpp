#include "core/stopwatch.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>

namespace minigpu {

double best_fenced_seconds(const std::function<void()>& once, int repetitions, int warmups) {
  for (int i = 0; i < warmups; ++i) once();
  double best = 0;
  for (int i = 0; i < repetitions; ++i) {
    Kokkos::fence();
    const auto t0 = Clock::now();
    once();
    Kokkos::fence();
    const double s = seconds_since(t0);
    best = i == 0 ? s : std::min(best, s);
  }
  return best;
}

}  // namespace minigpu
