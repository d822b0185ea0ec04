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

/// Throws std::runtime_error naming the rank and point when MINIGPU_INJECT_FAULT asks for
/// exactly this rank and point; does nothing otherwise (the variable unset, as always in use).
/// "RANK:POINT:hang" instead never returns there (":hang@K": the K-th time it gets there): a
/// kernel, fence or write that never comes back, for the watchdog's tests.
void maybe_inject_fault(const char* point, int rank);

}  // namespace minigpu
