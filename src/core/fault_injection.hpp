// A test hook for resilience: MINIGPU_INJECT_FAULT="RANK:POINT" makes rank RANK throw at
// POINT of the first case (setup, run, verify) or when rank 0 writes the run directory
// (write), so tests can check that one failing rank ends the whole job, never hangs it.
#pragma once

#include <string>

namespace minigpu {

/// Seconds MINIGPU_INJECT_DELAY="EXPERIMENT:SECONDS" adds to every recorded repetition of every
/// case of EXPERIMENT (0 otherwise), so a test can slow one experiment's cases on purpose and
/// check that `minigpu compare` calls them slower. Throws InputError on a malformed value.
double injected_delay_s(const std::string& experiment);

/// MINIGPU_INJECT_FAULT as one run reads it. `at(point, rank)` throws std::runtime_error naming
/// the rank and point when the variable asks for exactly this rank and point, and does nothing
/// otherwise (the variable unset, as always in use). "RANK:POINT:hang" instead never returns
/// there (":hang@K": the K-th time it gets there, counted by this object, which the run owns):
/// a kernel, fence or write that never comes back, for the watchdog's tests.
class FaultInjection {
 public:
  /// The variable as it is now (unset or empty: no fault).
  static FaultInjection from_environment();
  void at(const char* point, int rank);

 private:
  std::string spec_;
  int hang_points_reached_ = 0;
};

}  // namespace minigpu
