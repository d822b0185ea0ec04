// The engine's CalibrationClock: the runner's clock and statistics (summarize) for the timings
// an experiment asks for in its setup, each recorded by the experiment that asked, for run.json's
// `calibration`. One per run, shared by every copy of the run's context.
#pragma once

#include "core/calibration_clock.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace minigpu {

class CalibrationLog final : public CalibrationClock {
 public:
  CalibrationTiming time(const std::string& what, const std::function<void()>& once, int runs, int warmups,
                         bool fenced, TimedWork work) override;
  /// The experiment whose setup asks from now on (the runner names it before its cases).
  void begin(const std::string& experiment) { experiment_ = experiment; }
  /// While set, time() is a std::logic_error: a case's repetitions are being timed, and a
  /// calibration inside them would be measured as the case's own work.
  void forbid(bool timing_a_case) { forbidden_ = timing_a_case; }
  /// While `stopping()` (this rank's own stop signal; the runner sets it for its run, none when
  /// empty), time() gives up this rank's own work, between runs too: a Ctrl-C during
  /// matmul_scaling's calibration (5 s of GEMMs at n = 4096) waited for all of it. Work with
  /// other ranks is still timed, so their messages and collectives stay matched.
  void give_up_when(std::function<bool()> stopping) { stopping_ = std::move(stopping); }
  /// Whether a timing was given up: the run's figures drawn from this log are not to be used.
  bool gave_up() const { return gave_up_; }
  /// run.json's `calibration`: {experiment: [{what, runs, best_s, median_s}]}; null when no
  /// experiment asked.
  nlohmann::json record() const;

 private:
  std::string experiment_;
  bool forbidden_ = false;
  std::function<bool()> stopping_;
  bool gave_up_ = false;
  std::map<std::string, std::vector<CalibrationTiming>> timings_;
};

}  // namespace minigpu
