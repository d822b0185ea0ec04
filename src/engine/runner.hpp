// The runner owns timing: fence, barrier, clock; warm-ups dropped; repetitions summarised and
// reduced over ranks; every case verified. Observers (the console) hear about each case.
#pragma once

#include "engine/plan.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace minigpu {

struct RunOutcome {
  std::vector<CaseResult> results;
  std::vector<Finding> findings;
  bool all_verified = true;
  std::string started_utc;
  std::string finished_utc;
  int stop_signal = 0;  ///< > 0: the run stopped early at a case boundary on this signal
  int cases_planned = 0;
  /// Sections of run.json the experiments add (Experiment::run_record_section), by key.
  std::vector<std::pair<std::string, nlohmann::json>> sections;
};

/// Called on every rank after each case; `index` counts from 1 up to `total`.
using CaseObserver = std::function<void(const CaseResult&, int index, int total, double elapsed_s)>;
/// Polled on every rank at each case boundary and between repetitions: a signal number asks
/// the run to stop there (a case stopped between its repetitions is dropped). The ranks agree
/// (the largest wins), so all stop at the same point.
using StopPoll = std::function<int()>;

/// Whether a case timed `times` so far (each repetition's slowest rank, so every rank decides
/// alike) is done, and why: nullopt below `repetitions`; then "repetitions" unless target_cv
/// or max_time_s asks for more; "target_cv" once the times' cv is at most target_cv;
/// "max_time_s" once `elapsed_s` (the repetitions' wall time, overheads included) reaches
/// max_time_s (10 s for a target_cv alone); "max_repetitions" at 10^6.
std::optional<std::string> repetition_stop_reason(const PlannedExperiment& planned,
                                                  const std::vector<double>& times, double elapsed_s);
/// The same for one round of a case (PlannedExperiment::round_rule; `times` the round's own):
/// max_time_s is then the round's whole budget, the default for a target_cv alone included.
std::optional<std::string> repetition_stop_reason(const RoundRule& rule, const std::vector<double>& times,
                                                  double elapsed_s);

/// Times one repetition the runner's way (fence, barrier, clock; fence unless the case is
/// the unfenced lesson) and returns this rank's seconds; `clock`, if given, splits it in phases.
double time_one_repetition(Experiment& experiment, bool fence_after, const comm::Communicator& comm,
                           PhaseClock* clock);

/// Runs every case of the plan, or those before the boundary where `stop` asked to stop
/// (findings then come from the experiments that ran all their cases). An experiment of several
/// rounds takes its cases in turn in each; their rows come in the last round (a stop before it
/// keeps none of them).
/// Cases whose resume key (io::resume_key) is in `resumed` are not run: their recorded result
/// is reported instead (every rank must pass the same map).
RunOutcome run_plan(RunPlan& plan, const RunContext& ctx, const CaseObserver& observer,
                    const StopPoll& stop = {}, const std::map<std::string, CaseResult>& resumed = {});

}  // namespace minigpu
