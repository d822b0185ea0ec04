// Timings an experiment needs before its cases run (matmul_scaling's α, β and γ) are taken by
// the engine, never by the experiment's own clock: the experiment says what to run, and the
// engine's CalibrationClock (engine/calibration_log.hpp) runs, times, summarises and records it
// in run.json's `calibration`, and refuses while a case's repetitions are being timed.
#pragma once

#include <functional>
#include <string>

namespace minigpu {

/// Whom a timing's work involves. A rank may give up its own work alone (a GEMM) when the run
/// is being stopped; work that exchanges messages (a ping-pong) it must finish, or the rank at
/// the other end waits for it.
enum class TimedWork { this_rank, with_other_ranks };

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
  /// A timing of `TimedWork::this_rank` may be given up while the run is being stopped: it then
  /// has 0 runs and NaN figures and is not recorded, and the run stops before anything reads them.
  virtual CalibrationTiming time(const std::string& what, const std::function<void()>& once, int runs,
                                 int warmups, bool fenced, TimedWork work) = 0;
};

}  // namespace minigpu
