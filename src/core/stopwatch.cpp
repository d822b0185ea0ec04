#include "core/stopwatch.hpp"

#include <ctime>

#include <Kokkos_Core.hpp>

#include <algorithm>

namespace minigpu {

std::vector<double> run_seconds(const std::function<void()>& once, int repetitions, int warmups,
                                bool fenced) {
  for (int i = 0; i < warmups; ++i) once();
  std::vector<double> seconds;
  seconds.reserve(static_cast<std::size_t>(std::max(0, repetitions)));
  for (int i = 0; i < repetitions; ++i) {
    if (fenced) Kokkos::fence();
    const auto t0 = Clock::now();
    once();
    if (fenced) Kokkos::fence();
    seconds.push_back(seconds_since(t0));
  }
  return seconds;
}

double best_fenced_seconds(const std::function<void()>& once, int repetitions, int warmups) {
  const std::vector<double> s = run_seconds(once, repetitions, warmups, true);
  return s.empty() ? 0 : *std::min_element(s.begin(), s.end());
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
