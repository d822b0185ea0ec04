// The run pipeline in numbered steps; each step's work lives in its own layer.
#include "app/run_command.hpp"

#include "app/ceilings_command.hpp"
#include "app/run_output.hpp"
#include "app/stop_signals.hpp"
#include "comm/collectives.hpp"
#include "core/errors.hpp"
#include "core/profile_region.hpp"
#include "core/stopwatch.hpp"
#include "engine/plan_estimate.hpp"
#include "engine/plan_loading.hpp"
#include "engine/runner.hpp"
#include "engine/watchdog.hpp"
#include "io/console_writer.hpp"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>

namespace minigpu {

int run_command(const RunOptions& options, const MpiSession& mpi, const DeviceBinding& binding) {
  // 1. Validate the whole input (and memory needs) before anything runs or is written.
  RunContext ctx;
  ctx.binding = binding;
  // `kernel: auto` may measure while configuring: its chooser caches beside the ceilings.
  ctx.gemm = std::make_shared<GemmChooser>(time_gemm_pair, host_build_cache_key(), ctx.rank() == 0);
  PlanOptions plan_options;
  if (!options.output_dir.empty()) plan_options.output_dir = options.output_dir;
  plan_options.only = options.only;
  plan_options.overrides = options.overrides;
  plan_options.case_timeout_s = options.case_timeout_s;
  // The input may ask for emulated GPUs: settled here, before any experiment lists its devices.
  settle_devices(load_settings_everywhere(options.input, plan_options, ctx));
  RunPlan plan = load_plan_everywhere(options.input, plan_options, ctx);
  const std::map<std::string, CaseResult> resumed = load_resumed_everywhere(options.resume, plan, ctx);
  io::ConsoleWriter console(std::cout, live_progress());
  // 2. The run's directory exists before the first case (a dry run makes it and takes it away
  //    again): an unusable output location is bad input (exit 2), found now, not after hours.
  std::optional<io::RunDirectory> directory = open_run_directory(plan, mpi, ctx, options.dry_run);
  if (options.dry_run) {
    if (mpi.is_root()) {
      std::vector<std::pair<std::string, std::vector<CaseSpec>>> cases;
      for (const auto& e : plan.experiments) cases.emplace_back(e.name, e.cases);
      console.plan(plan.resolved_input, cases, mpi.size(), describe(estimate_plan(plan, cached_ceilings())),
                   device_warnings(plan));
    }
    return kExitOk;
  }
  // The machine's ceilings, before the first case: every rate row is set against them.
  const bool bounded = std::any_of(plan.experiments.begin(), plan.experiments.end(), [](const auto& e) {
    return std::any_of(e.cases.begin(), e.cases.end(), [](const CaseSpec& c) { return !c.ceiling.empty(); });
  });
  if (bounded) plan.ceilings = obtain_ceilings(false, ctx.comm);
  io::RunRecord record = plan_record(plan, ctx);
  record.resumed_from = options.resume;
  record.ceilings = plan.ceilings;
  record.gemm_auto = ctx.gemm_record();
  // 3. Run every case; rank 0 prints rows as they finish and rewrites the directory's files,
  //    so a run killed outright still leaves its finished cases there.
  if (mpi.is_root()) {
    console.host_build(record.provenance);
    console.rank_map(record.ranks);
    if (bounded) console.ceilings(record.ceilings);
    console.warnings(device_warnings(plan));
  }
  install_stop_handlers();
  // From here no rank waits silently: a rank that stops answering or progressing past its
  // case's budget ends the job (exit 4), named by the lowest rank still answering.
  const Watchdog watchdog(ctx.comm, directory ? directory->path() : "");
  std::vector<CaseResult> finished;
  const auto save = [&](const std::vector<CaseResult>& results, const std::vector<Finding>& findings,
                        io::RunStatus status) {
    const ProfileRegion region("write");
    ctx.faults->at("write", ctx.rank());
    save_run(*directory, record, results, findings, status);
  };
  record.started = utc_now_iso8601();
  RunOutcome outcome = run_plan(
      plan, ctx,
      [&](const CaseResult& r, int index, int total, double elapsed) {
        if (!mpi.is_root()) return;
        console.case_finished(r, index, total, elapsed);
        finished.push_back(r);
        save(finished, {}, io::RunStatus::running);
      },
      stop_signal_received, resumed);
  // 4. Rank 0 completes the record and moves it into place; every rank agrees on the exit code.
  std::string dir;
  if (mpi.is_root()) {
    record_outcome(record, outcome);
    save(outcome.results, outcome.findings, record.status);
    dir = directory->finish();
    console.findings(outcome.findings);
    console.summary(outcome.results, dir);
    if (outcome.stop_signal != 0) {
      std::cout << "interrupted by " << strsignal(outcome.stop_signal) << ": " << outcome.results.size()
                << " of " << outcome.cases_planned << " cases finished and kept in " << dir << '\n';
    }
  }
  if (outcome.stop_signal != 0) return kExitSignalBase + outcome.stop_signal;
  // 5. Figures, if asked for; a plotting failure is reported but leaves the results intact.
  bool plotted = true;
  if (options.plot && mpi.is_root()) {
    std::cout.flush();
    plotted = plot_results(dir);
    if (!plotted) std::cerr << "minigpu: error: scripts/plot.py failed on " << dir << '\n';
  }
  if (!outcome.all_verified) return kExitVerifyFailed;
  return comm::all_ranks(plotted, ctx.comm) ? kExitOk : kExitRuntimeError;
}

}  // namespace minigpu
