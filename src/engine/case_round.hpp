// One round of a case, the runner's way: set up, warm up, time its repetitions, verify, tear
// down. A case runs in one round, or in several taken in turn with its experiment's other cases
// (run.rounds); its row is then made from all of them. runner.cpp decides which and when.
#pragma once

#include "core/machine_load.hpp"
#include "engine/plan.hpp"
#include "engine/runner.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace minigpu::detail {

/// What a case's rounds measured so far, on this rank.
struct CaseTimings {
  std::vector<double> local;   ///< this rank's repetitions, seconds, every round's in turn
  std::vector<double> global;  ///< each repetition's slowest rank (every rank holds the same)
  std::vector<std::vector<std::pair<std::string, double>>> phase_reps;  ///< each repetition's phases
  /// The largest share of its wall time any round could not run; nullopt where /proc could not say.
  std::optional<CpuWait> waited = CpuWait{};
  std::string stopped_by;  ///< the rule that ended the last round (repetition_stop_reason)
  int rounds = 0;
  Check check{true, "", std::nullopt};  ///< the first round whose verification failed, else the last
};

/// The signal the ranks agree to stop on (the largest any rank saw), or 0. Collective.
int agreed_stop(const StopPoll& stop, const comm::Communicator& comm);

/// One round of `spec` under `rule`, its repetitions appended to `so_far`; false when a stop was
/// agreed before or between its repetitions (the case is then torn down and dropped). Collective.
bool measure_round(PlannedExperiment& planned, const CaseSpec& spec, const RoundRule& rule,
                   const RunContext& ctx, const StopPoll& stop, CaseTimings& so_far);

/// The case's row from its rounds: the repetitions' statistics, each rank's mean (a straggler
/// named, with its CPU wait), the phases and the verification. Collective.
CaseResult case_result(const PlannedExperiment& planned, const CaseSpec& spec, const RunContext& ctx,
                       const std::vector<std::string>& hosts, const CaseTimings& timings);

}  // namespace minigpu::detail
