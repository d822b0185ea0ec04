#include "engine/calibration_log.hpp"

#include "core/stopwatch.hpp"
#include "engine/stats.hpp"

#include <limits>
#include <stdexcept>

namespace minigpu {

CalibrationTiming CalibrationLog::time(const std::string& what, const std::function<void()>& once, int runs,
                                       int warmups, bool fenced, TimedWork work) {
  if (forbidden_)
    throw std::logic_error("calibration '" + what + "' asked for while a case's repetitions are timed");
  if (runs < 1) throw std::invalid_argument("calibration '" + what + "': runs must be at least 1");
  const bool may_give_up = work == TimedWork::this_rank && stopping_;
  const auto stopping = [&] { return may_give_up && stopping_(); };
  // The check inside each timed run reads a signal flag: nanoseconds, against the milliseconds
  // of a model's GEMMs. A run it skips leaves a time of nothing, and the timing is given up.
  const auto unless_stopping = [&] {
    if (!stopping()) once();
  };
  std::vector<double> seconds;
  if (!stopping()) seconds = run_seconds(unless_stopping, runs, warmups, fenced);
  if (stopping()) {
    gave_up_ = true;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {what, 0, nan, nan};
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
