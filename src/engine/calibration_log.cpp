#include "engine/calibration_log.hpp"

#include "core/stopwatch.hpp"
#include "engine/stats.hpp"

#include <stdexcept>

namespace minigpu {

CalibrationTiming CalibrationLog::time(const std::string& what, const std::function<void()>& once, int runs,
                                       int warmups, bool fenced) {
  if (forbidden_)
    throw std::logic_error("calibration '" + what + "' asked for while a case's repetitions are timed");
  if (runs < 1) throw std::invalid_argument("calibration '" + what + "': runs must be at least 1");
  const Stats s = summarize(run_seconds(once, runs, warmups, fenced));
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
