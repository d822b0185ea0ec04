// Loading a plan on every rank of a job: the input, its memory needs and its cases judged
// everywhere, so that all ranks go on together or all stop with the same input error.
#pragma once

#include "comm/communicator.hpp"
#include "core/binding.hpp"
#include "engine/plan.hpp"
#include "io/results.hpp"
#include "io/run_record.hpp"

#include <map>
#include <string>
#include <vector>

namespace minigpu {

/// Throws InputError when a case needs more memory than its device has, before allocating.
void check_memory_fits(const RunPlan& plan, const DeviceBinding& binding);

/// load_run_plan (settling the devices with `settle`) and check_memory_fits on every rank, then the
/// same-cases check: if any rank rejects the input, every rank throws the same InputError (the lowest
/// failing rank's, named when not rank 0), so all exit 2 together instead of some waiting in a
/// collective forever.
RunPlan load_plan_everywhere(const std::string& input, const PlanOptions& options, RunContext& ctx,
                             const DeviceSettler& settle);

/// Throws InputError unless every rank expanded the same cases in the same order: collectives
/// pair up only then. Names the first case that differs.
void require_same_cases_everywhere(const RunPlan& plan, const RunContext& ctx);

/// The finished cases of an earlier run of this very input (--resume DIR; none for ""), read
/// on rank 0 and shared, so every rank skips the same cases. Bad directories are InputError.
std::map<std::string, CaseResult> load_resumed_everywhere(const std::string& dir, const RunPlan& plan,
                                                          const RunContext& ctx);

/// The run record's first part for `plan`: this process's provenance, every rank's placement
/// gathered, the input as run, each experiment's description and figure from the registry.
io::RunRecord plan_record(const RunPlan& plan, const RunContext& ctx);

/// Collective over `comm`. Every rank's place (host, device and the rule that chose it, cores),
/// in rank order: the rank map of a run, and of `minigpu devices`.
std::vector<io::RankPlacement> gather_placements(const DeviceBinding& binding,
                                                 const comm::Communicator& comm);

}  // namespace minigpu
