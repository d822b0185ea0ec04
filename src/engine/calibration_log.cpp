#include "engine/calibration_log.hpp"

#include "core/stopwatch.hpp"
#include "engine/stats.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>

namespace minigpu {

CalibrationTiming CalibrationLog::time(const std::string& what, const std::function<void()>& once, int runs,
                                       int warmups, bool fenced) {
  if (forbidden_)
    throw std::logic_error("calibration '" + what + "' asked for while a case's repetitions are timed");
  if (runs < 1) throw std::invalid_argument("calibration '" + what + "': runs must be at least 1");
  for (int i = 0; i < warmups; ++i) once();
  std::vector<double> seconds;
  seconds.reserve(static_cast<std::size_t>(runs));
  for (int i = 0; i < runs; ++i) {
    if (fenced) Kokkos::fence();
    const auto t0 = Clock::now();
    once();
    if (fenced) Kokkos::fence();
    seconds.push_back(seconds_since(t0));
  }
  const Stats s = summarize(seconds);
  CalibrationTiming t{what, runs, s.min, s.median};
  timings_[experiment_].push_back(t);
  return t;
}

nlohmann::json CalibrationLog::record() const {
  if (timings_.empty()) return nullptr;
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [experiment, list] : timings_) {
    auto& out = j[experiment] = nlohmann::json::array();
    for (const auto& t : list)
      out.push_back({{"what", t.what}, {"runs", t.runs}, {"best_s", t.best_s}, {"median_s", t.median_s}});
  }
  return j;
}

}  // namespace minigpu
