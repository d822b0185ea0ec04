// Where a run's output goes: its directory, the console's progress line, the figures.
#pragma once

#include "comm/mpi_session.hpp"
#include "engine/plan.hpp"
#include "engine/runner.hpp"
#include "io/run_directory.hpp"
#include "io/run_record.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace minigpu {

/// Rank 0 creates the run's directory (or, for a dry run, proves it could and leaves none), or
/// takes up the one `resume` names, so that a resumed run completes where it started; every
/// rank learns whether it could, since an unusable output location is bad input.
std::optional<io::RunDirectory> open_run_directory(const RunPlan& plan, const MpiSession& mpi,
                                                   const RunContext& ctx, bool dry_run,
                                                   const std::string& resume);

/// Rank 0 rewrites the directory's results.csv and run.json with `status`. A write that fails
/// (a full disk) keeps the files of the last good write, says so in them if there is room,
/// renames the directory .failed-XXXXXX so nobody takes it for a run in progress, and throws.
void save_run(io::RunDirectory& directory, io::RunRecord& record, const std::vector<CaseResult>& results,
              const std::vector<Finding>& findings, io::RunStatus status);

/// The record's last part from the run's outcome: its times, the cases planned, the sections
/// experiments added, and (if a signal stopped it) status interrupted and why.
void record_outcome(io::RunRecord& record, const RunOutcome& outcome);

/// "SIGINT (Interrupt)", "SIGTERM (Terminated)" or "signal N (…)"; "" for 0.
std::string signal_name(int sig);
/// run.json's stop_reason: "signal 2, SIGINT (Interrupt): stopped after 3 of 20 cases".
std::string interruption_reason(int sig, std::size_t finished, int planned);
/// The cases of every experiment of the plan.
int plan_case_count(const RunPlan& plan);

/// Whether the console may redraw a status line in place (MINIGPU_PROGRESS, a terminal).
bool live_progress();

/// Runs the project's plotting script on `dir`, ended past `budget_s` seconds or once
/// `stopped()`: its exit code (0: drawn), -1, kScriptTimedOut or kScriptStopped
/// (app/python_script.hpp).
int plot_results(const std::string& dir, double budget_s, const std::function<bool()>& stopped);

}  // namespace minigpu
