// A test hook for resilience: MINIGPU_INJECT_FAULT="RANK:POINT" makes rank RANK throw at
// POINT of the first case (setup, run, verify) or when rank 0 writes the run directory
// (write), so tests can check that one failing rank ends the whole job, never hangs it.
#pragma once

#include <string>

namespace minigpu {

/// Throws std::runtime_error naming the rank and point when MINIGPU_INJECT_FAULT asks for
/// exactly this rank and point; does nothing otherwise (the variable unset, as always in use).
void maybe_inject_fault(const char* point, int rank);

}  // namespace minigpu
