// The run directory, the progress line and the figures of `minigpu run`.
#include "app/run_output.hpp"

#include "app/data_paths.hpp"
#include "app/python_script.hpp"
#include "comm/collectives.hpp"
#include "config/config_node.hpp"
#include "core/errors.hpp"
#include "core/stopwatch.hpp"
#include "engine/runner.hpp"

#include <unistd.h>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace minigpu {
namespace {

std::string compact_stamp(const std::string& iso) {
  std::string stamp;
  for (char c : iso) {
    if (c != '-' && c != ':') stamp += c;
  }
  return stamp;
}

}  // namespace

std::optional<io::RunDirectory> open_run_directory(const RunPlan& plan, const MpiSession& mpi,
                                                   const RunContext& ctx, bool dry_run,
                                                   const std::string& resume) {
  std::optional<io::RunDirectory> directory;
  std::string problem;
  if (mpi.is_root()) {
    try {
      if (dry_run) {
        if (resume.empty()) io::probe_output_dir(plan.run.output_dir);
      } else if (!resume.empty()) {
        directory.emplace(io::RunDirectory::reopen(resume));
      } else {
        directory.emplace(plan.run.output_dir, plan.run.name, compact_stamp(utc_now_iso8601()));
      }
    } catch (const std::system_error& e) {
      problem = !resume.empty() ? "--resume " + resume + ": " + e.what()
                                : plan.run.output_dir_source + ": cannot create a run directory in '" +
                                      shown(plan.run.output_dir) + "': " + e.code().message();
    }
  }
  if (!comm::all_ranks(problem.empty(), ctx.comm)) {
    throw InputError(mpi.is_root() ? problem : "rank 0 cannot create the run directory");
  }
  return directory;
}

void save_run(io::RunDirectory& directory, io::RunRecord& record, const std::vector<CaseResult>& results,
              const std::vector<Finding>& findings, io::RunStatus status) {
  record.status = status;
  try {
    directory.write(io::results_csv(results), io::run_json(record, results, findings));
  } catch (const std::exception& e) {
    record.status = io::RunStatus::failed;
    record.failure = e.what();
    try {
      directory.write(io::results_csv(results), io::run_json(record, results, findings));
    } catch (const std::exception&) {
    }
    throw std::runtime_error(std::string(e.what()) + "; the run stopped, and what was written is kept in " +
                             directory.mark_failed());
  }
}

void record_outcome(io::RunRecord& record, const RunOutcome& outcome) {
  record.started = outcome.started_utc;
  record.finished = outcome.finished_utc;
  record.cases_planned = outcome.cases_planned;
  record.sections = outcome.sections;
  record.status = io::RunStatus::complete;
  record.stop_reason.clear();
  if (outcome.stop_signal == 0) return;
  record.status = io::RunStatus::interrupted;
  record.stop_reason =
      interruption_reason(outcome.stop_signal, outcome.results.size(), outcome.cases_planned);
}

std::string signal_name(int sig) {
  if (sig == 0) return "";
  const std::string what = strsignal(sig);
  if (sig == SIGINT) return "SIGINT (" + what + ")";
  if (sig == SIGTERM) return "SIGTERM (" + what + ")";
  return "signal " + std::to_string(sig) + " (" + what + ")";
}

std::string interruption_reason(int sig, std::size_t finished, int planned) {
  return "signal " + std::to_string(sig) + ", " + signal_name(sig) + ": stopped after " +
         std::to_string(finished) + " of " + std::to_string(planned) + " cases";
}

int plan_case_count(const RunPlan& plan) {
  int total = 0;
  for (const auto& e : plan.experiments) total += static_cast<int>(e.cases.size());
  return total;
}

// Under an MPI launcher a rank's stdout may be a pseudo-terminal whatever mpirun writes to,
// so there only MINIGPU_PROGRESS=live (set by scripts/run.sh when its own output is a
// terminal) turns it on; `lines` turns it off.
bool live_progress() {
  const char* asked = std::getenv("MINIGPU_PROGRESS");
  if (asked && std::string(asked) == "live") return true;
  if (asked && std::string(asked) == "lines") return false;
  for (const char* launcher : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_ID"}) {
    if (std::getenv(launcher)) return false;
  }
  return isatty(STDOUT_FILENO) != 0;
}

// The figures come from the project's own plotting script, installed or in the source tree.
int plot_results(const std::string& dir, double budget_s, const std::function<bool()>& stopped) {
  return run_python_script(data_paths().scripts / "plot.py", {dir}, budget_s, stopped);
}

}  // namespace minigpu
