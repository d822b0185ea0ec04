// The one clock every measurement in miniGPU reads: the runner's repetitions, the ceilings,
// `kernel: auto`'s timings and the scaling model's calibration. Monotonic, in seconds.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace minigpu {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The seconds of each of `repetitions` runs of `once` after `warmups` untimed ones, in order;
/// with `fenced`, each run fenced (Kokkos::fence) before its clock starts and before it stops
/// (device work), without, the host's own time (a ping-pong: nothing left queued to fence).
std::vector<double> run_seconds(const std::function<void()>& once, int repetitions, int warmups, bool fenced);

/// The shortest of run_seconds' fenced runs: what is reachable, for bounds and for choosing
/// between kernels.
double best_fenced_seconds(const std::function<void()>& once, int repetitions, int warmups = 1);

/// The wall-clock time now, "2026-11-20T23:05:00Z": what records and caches are stamped with.
std::string utc_now_iso8601();

}  // namespace minigpu
