// What --dry-run can say about a plan without running it: a rough run time, and warnings a
// user should see before the first case (a GPU input that would run on the CPU).
#pragma once

#include "ceilings/ceilings.hpp"
#include "engine/plan.hpp"

#include <string>
#include <vector>

namespace minigpu {

struct PlanEstimate {
  double seconds = 0;       ///< the whole plan, warm-ups included
  bool open_ended = false;  ///< a target_cv or max_time_s repeats past the minimum, up to `seconds`
  std::string basis;        ///< which rates the model used
};

/// Each repetition of a case is modelled as touching its memory twice at the copy ceiling
/// and doing its flops_estimate at the gemm ceiling, plus a fixed launch cost: good to a
/// factor of a few, enough to tell seconds from hours. `ceilings` may be empty (then
/// conservative rates stand in, and `basis` says so).
PlanEstimate estimate_plan(const RunPlan& plan, const CeilingTable& ceilings);

/// One case's seconds by the same model, warm-ups and the adaptive budget included.
double estimate_case_seconds(const PlannedExperiment& planned, const CaseSpec& spec, const CeilingTable& ceilings);

/// How long a case may go without progress before the watchdog ends the job: its
/// case_timeout if set, else kCaseBudgetFactor times its estimate, never below kCaseBudgetFloorS
/// (the model is good to a factor of a few; a false alarm costs a whole job).
inline constexpr double kCaseBudgetFactor = 10, kCaseBudgetFloorS = 60;
double case_budget_s(const PlannedExperiment& planned, const CaseSpec& spec, const CeilingTable& ceilings);

/// "about 12 s (model: ...)" for the console.
std::string describe(const PlanEstimate& e);

/// One line per experiment that asked for a GPU (device auto or gpu) and will run without a
/// real one: on the cpu, or on an emulated GPU whose memory is the host's.
std::vector<std::string> device_warnings(const RunPlan& plan);

/// One line per experiment of several rounds: its cases go in turn, and its rows come when the
/// last round ends (nothing is printed for it before).
std::vector<std::string> round_notes(const RunPlan& plan);

}  // namespace minigpu
