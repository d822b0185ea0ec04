#include "core/stopwatch.hpp"

#include <ctime>

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

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace minigpu
