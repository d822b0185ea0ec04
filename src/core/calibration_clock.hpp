// Timings an experiment needs before its cases run (matmul_scaling's α, β and γ) are taken by
// the engine, never by the experiment's own clock: the experiment says what to run, and the
// engine's CalibrationClock (engine/calibration_log.hpp) runs, times, summarises and records it
// in run.json's `calibration`, and refuses while a case's repetitions are being timed.
#pragma once

#include <functional>
#include <string>

namespace minigpu {

/// One calibration timing: `runs` runs of what `what` names, after the warm-ups.
struct CalibrationTiming {
  std::string what;
  int runs = 0;
  double best_s = 0, median_s = 0;
};

class CalibrationClock {
 public:
  virtual ~CalibrationClock() = default;
  /// Runs `once` `warmups` times untimed, then `runs` times timed. `fenced`: each run fenced
  /// (Kokkos::fence) before its clock starts and before it stops, for kernels that return at
  /// launch; unfenced for work that completes before it returns (a ping-pong's round trip).
  virtual CalibrationTiming time(const std::string& what, const std::function<void()>& once, int runs,
                                 int warmups, bool fenced) = 0;
};

}  // namespace minigpu
