// Test hooks for resilience, read from the environment once per run (FaultInjection::
// from_environment, in `minigpu run` alone) and carried in its context; a context made any other
// way injects nothing. MINIGPU_INJECT_FAULT="RANK:POINT" makes rank RANK throw at POINT of the
// first case (setup, run, verify) or when rank 0 writes the run directory (write), so tests can
// check that one failing rank ends the whole job, never hangs it.
#pragma once

#include <string>

namespace minigpu {

/// MINIGPU_INJECT_FAULT and MINIGPU_INJECT_DELAY as one run reads them. `at(point, rank)` throws
/// std::runtime_error naming the rank and point when the variable asks for exactly this rank and point, and
/// does nothing otherwise (the variable unset, as always in use). "RANK:POINT:hang" instead never returns
/// there (":hang@K": the K-th time it gets there, counted by this object, which the run owns):
/// a kernel, fence or write that never comes back, for the watchdog's tests; "RANK:POINT:stop@K"
/// stops the whole process there (SIGSTOP: a frozen node, its watchdog silent). "RANK:POINT:sigint"
/// raises SIGINT there the first time, as a Ctrl-C reaching that rank at that moment.
class FaultInjection {
 public:
  /// The variables as they are now (unset or empty: nothing injected). Throws InputError on a
  /// malformed MINIGPU_INJECT_DELAY.
  static FaultInjection from_environment();
  void at(const char* point, int rank);
  /// Seconds MINIGPU_INJECT_DELAY="EXPERIMENT:SECONDS" adds to every recorded repetition of every
  /// case of EXPERIMENT (0 otherwise), so a test can slow one experiment's cases on purpose and
  /// check that `minigpu compare` calls them slower.
  double delay_s(const std::string& experiment) const { return experiment == delayed_ ? delay_s_ : 0; }

 private:
  std::string spec_;
  std::string delayed_;
  double delay_s_ = 0;
  int hang_points_reached_ = 0;
  int signal_points_reached_ = 0;
};

}  // namespace minigpu
