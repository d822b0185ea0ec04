// The runner owns timing: fence, barrier, clock; warm-ups dropped; repetitions summarised and
// reduced over ranks; every case verified. Observers (the console) hear about each case.
#pragma once

#include "experiments/run_plan.hpp"

#include <functional>
#include <string>
#include <vector>

namespace minigpu {

struct RunOutcome {
  std::vector<CaseResult> results;
  std::vector<Finding> findings;
  bool all_verified = true;
  std::string started_utc;
  std::string finished_utc;
};

/// Called on every rank after each case; `index` counts from 1 up to `total`.
using CaseObserver = std::function<void(const CaseResult&, int index, int total, double elapsed_s)>;

/// Throws InputError when a case needs more memory than its device has, before allocating.
void check_memory_fits(const RunPlan& plan);

/// Times one repetition the runner's way (fence, barrier, clock; fence unless the case is
/// the unfenced lesson) and returns this rank's seconds; `clock`, if given, splits it in phases.
double time_one_repetition(Experiment& experiment, bool fence_after, const comm::Communicator& comm,
                           PhaseClock* clock);

/// Runs every case of the plan.
RunOutcome run_plan(RunPlan& plan, const RunContext& ctx, const CaseObserver& observer);

/// "2026-11-20T23:05:00Z".
std::string utc_now_iso8601();

}  // namespace minigpu
