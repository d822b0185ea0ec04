// Where a run's output goes: its directory, the console's progress line, the figures.
#pragma once

#include "comm/mpi_session.hpp"
#include "engine/plan.hpp"
#include "engine/runner.hpp"
#include "io/run_directory.hpp"
#include "io/run_record.hpp"

#include <optional>
#include <string>
#include <vector>

namespace minigpu {

/// Rank 0 creates the run's directory (or, for a dry run, proves it could and leaves none);
/// every rank learns whether it could, since an unusable output location is bad input.
std::optional<io::RunDirectory> open_run_directory(const RunPlan& plan, const MpiSession& mpi,
                                                   const RunContext& ctx, bool dry_run);

/// Rank 0 rewrites the directory's results.csv and run.json with `status`. A write that fails
/// (a full disk) keeps the files of the last good write, says so in them if there is room,
/// renames the directory .failed-XXXXXX so nobody takes it for a run in progress, and throws.
void save_run(io::RunDirectory& directory, io::RunRecord& record, const std::vector<CaseResult>& results,
              const std::vector<Finding>& findings, io::RunStatus status);

/// The record's last part from the run's outcome: its times, the cases planned, the sections
/// experiments added, and (if a signal stopped it) status interrupted and why.
void record_outcome(io::RunRecord& record, const RunOutcome& outcome);

/// Whether the console may redraw a status line in place (MINIGPU_PROGRESS, a terminal).
bool live_progress();

/// Runs the project's plotting script on `dir`; false when it fails.
bool plot_results(const std::string& dir);

}  // namespace minigpu
