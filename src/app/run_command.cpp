// The run pipeline in numbered steps; each step's work lives in its own layer.
#include "app/run_command.hpp"

#include "app/ceilings_command.hpp"
#include "app/job_setup.hpp"
#include "app/python_script.hpp"
#include "app/run_output.hpp"
#include "app/stop_signals.hpp"
#include "comm/collectives.hpp"
#include "core/binding.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/fault_injection.hpp"
#include "core/machine_load.hpp"
#include "core/profile_region.hpp"
#include "core/progress.hpp"
#include "core/stopwatch.hpp"
#include "engine/plan_estimate.hpp"
#include "engine/plan_loading.hpp"
#include "engine/runner.hpp"
#include "engine/watchdog.hpp"
#include "io/console_writer.hpp"
#include "io/format.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>

namespace minigpu {
namespace {

// `word` as a shell reads it back: as is when it holds nothing a shell would act on, else in
// single quotes (a quote within written '\'').
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./=:,@+-%", c) != nullptr;
  });
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> joined(std::vector<std::string> first, const std::vector<std::string>& second) {
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

// Collective: the load on the most loaded node since `before`, each node's job CPU time summed
// over its ranks; none where no node could say.
std::optional<MachineLoad> machine_load_since(const CpuSample& before, const comm::Communicator& node,
                                              const comm::Communicator& world) {
  const CpuSample after = sample_cpu();
  const double job_cpu = comm::sum_over_ranks(after.own_s - before.own_s, node);
  std::optional<MachineLoad> mine;
  if (node.rank() == 0) mine = load_between(before, after, job_cpu);
  const std::vector<double> worst = comm::max_over_ranks(
      std::vector<double>{mine ? mine->others : -1, mine ? mine->steal : -1, mine ? mine->seconds : -1},
      world);
  if (worst[0] < 0) return std::nullopt;
  return MachineLoad{worst[0], worst[1], worst[2]};
}

}  // namespace

int run_command(const RunOptions& options, const MpiSession& mpi, const DeviceBinding& binding) {
  // 1. Validate the whole input (and memory needs) before anything runs or is written.
  if (!options.resume.empty() && !options.output_dir.empty())
    throw InputError("--resume continues the run in its own directory (" + options.resume +
                     "); --output-dir cannot move it");
  confirm_gpu_aware_mpi(comm::Communicator::world());
  // This run's context: the world, main's binding, and `kernel: auto`'s chooser, which may
  // measure while configuring and caches beside the ceilings; the tests' hooks, read once.
  RunContext ctx = RunContext::on(comm::Communicator::world(), binding, host_build_cache_key());
  ctx.faults = std::make_shared<FaultInjection>(FaultInjection::from_environment());
  PlanOptions plan_options;
  if (!options.output_dir.empty()) plan_options.output_dir = options.output_dir;
  plan_options.only = options.only;
  plan_options.overrides = options.overrides;
  plan_options.case_timeout_s = options.case_timeout_s;
  // The input, read once. It may ask for emulated GPUs: settled as soon as its run section is
  // read, before any experiment lists its devices.
  std::vector<std::string> warnings;
  RunPlan plan =
      load_plan_everywhere(options.input, plan_options, ctx, [&](const RunSettings& s, RunContext& c) {
        settle_devices(s);
        // GPUs the input emulates were not there when main bound the ranks: bound again to them, so
        // that more ranks than GPUs is warned about as with real ones.
        if (gpus_are_emulated() && binding.visible_gpus != emulated_gpu_count()) {
          const DeviceBinding emulated =
              plan_binding(binding.local_rank, binding.local_size, emulated_gpu_count());
          c.binding.visible_gpus = emulated.visible_gpus;
          c.binding.device_id = emulated.device_id;
          c.binding.rule = emulated.rule;
          warnings = emulated.warnings;
        }
      });
  const std::map<std::string, CaseResult> resumed = load_resumed_everywhere(options.resume, plan, ctx);
  io::ConsoleWriter console(std::cout, live_progress());
  // 2. The run's directory exists before the first case (a dry run makes it and takes it away
  //    again): an unusable output location is bad input (exit 2), found now, not after hours.
  std::optional<io::RunDirectory> directory =
      open_run_directory(plan, mpi, ctx, options.dry_run, options.resume);
  if (options.dry_run) {
    if (mpi.is_root()) {
      std::vector<std::pair<std::string, std::vector<CaseSpec>>> cases;
      for (const auto& e : plan.experiments) cases.emplace_back(e.name, e.cases);
      console.plan(plan.resolved_input, cases, mpi.size(), describe(estimate_plan(plan, cached_ceilings())),
                   joined(warnings, device_warnings(plan)));
    }
    return kExitOk;
  }
  // Ctrl-C from here on stops the run at its next repetition and keeps what it finished.
  install_stop_handlers();
  io::RunRecord record = plan_record(plan, ctx);
  record.resumed_from = options.resume;
  // Rank 0 writes the directory from the runner's observer and, on a stop signal, at once from
  // the stop watcher's thread: one at a time, and the record changes under the same lock.
  std::mutex writing;
  std::vector<CaseResult> finished;
  int marked_signal = 0;  // the signal the directory was marked interrupted for, if any
  const auto save = [&](const std::vector<CaseResult>& results, const std::vector<Finding>& findings,
                        io::RunStatus status) {
    const ProfileRegion region("write");
    ctx.faults->at("write", ctx.rank());
    save_run(*directory, record, results, findings, status);
  };
  std::optional<StopWatcher> watcher;
  if (mpi.is_root()) {
    // On disk at once, so that a launcher's kill soon after its signal (Open MPI's mpirun: 1 s)
    // still leaves a directory that says what happened, also while the ceilings are measured
    // (a first run's several seconds); the runner stops at its next boundary.
    watcher.emplace([&](int sig) {
      const std::lock_guard<std::mutex> lock(writing);
      marked_signal = sig;
      record.stop_reason = interruption_reason(sig, finished.size(), plan_case_count(plan));
      try {
        save_run(*directory, record, finished, {}, io::RunStatus::interrupted);
        // On a line of its own: a live progress line may be showing.
        std::cerr << "\nminigpu: interrupted by " << signal_name(sig) << ": stopping at the next repetition; "
                  << finished.size() << " case(s) finished so far, kept in " << directory->mark_interrupted()
                  << std::endl;
      } catch (const std::exception& e) {  // the main thread's next write reports it
        std::cerr << "minigpu: interrupted by " << signal_name(sig) << ": " << e.what() << std::endl;
      }
    });
  }
  // The machine's ceilings, before the first case: every rate row is set against them. A stop
  // signal ends their measurement between figures, and the run before its first case.
  const bool bounded = std::any_of(plan.experiments.begin(), plan.experiments.end(), [](const auto& e) {
    return std::any_of(e.cases.begin(), e.cases.end(), [](const CaseSpec& c) { return !c.ceiling.empty(); });
  });
  if (bounded) plan.ceilings = obtain_ceilings(false, ctx.comm, [] { return stop_signal_received() != 0; });
  {
    const std::lock_guard<std::mutex> lock(writing);
    record.ceilings = plan.ceilings;
    record.gemm_auto = ctx.gemm_record();
  }
  // 3. Run every case; rank 0 prints rows as they finish and rewrites the directory's files,
  //    so a run killed outright still leaves its finished cases there.
  if (mpi.is_root()) {
    console.host_build(record.provenance);
    console.rank_map(record.ranks);
    if (bounded) console.ceilings(record.ceilings);
    console.warnings(joined(warnings, device_warnings(plan)));
    console.notes(round_notes(plan));
  }
  // From here no rank waits silently: a rank that stops answering or progressing past its
  // case's budget ends the job (exit 4), named by the lowest rank still answering.
  const Watchdog watchdog(ctx.comm, directory ? directory->path() : "");
  {
    const std::lock_guard<std::mutex> lock(writing);  // the stop watcher may be saving `record`
    record.started = utc_now_iso8601();
  }
  const comm::Communicator node = ctx.comm.split_node();
  const CpuSample load_before = sample_cpu();
  RunOutcome outcome = run_plan(
      plan, ctx,
      [&](const CaseResult& r, int index, int total, double elapsed) {
        if (!mpi.is_root()) return;
        const std::lock_guard<std::mutex> lock(writing);
        console.case_finished(r, index, total, elapsed);
        finished.push_back(r);
        save(finished, {}, marked_signal ? io::RunStatus::interrupted : io::RunStatus::running);
      },
      stop_signal_received, resumed);
  if (watcher) watcher->stop();
  record.machine_load = machine_load_since(load_before, node, ctx.comm);
  // 4. Rank 0 completes the record and gives the directory the name of how the run ended;
  //    every rank agrees on the exit code.
  std::string dir;
  double longest_budget_s = 0;
  for (const auto& e : plan.experiments)
    for (const auto& spec : e.cases)
      longest_budget_s = std::max(longest_budget_s, case_budget_s(e, spec, plan.ceilings));
  if (mpi.is_root()) {
    record_outcome(record, outcome);
    {
      // Watched as each case's write is, under the longest case budget: a write that never
      // returns (a hung file system) ends the job, not the other ranks' wait for rank 0.
      const progress::Case watched("the run's last write", longest_budget_s);
      save(outcome.results, outcome.findings, record.status);
      dir = outcome.stop_signal != 0 ? directory->mark_interrupted() : directory->finish();
    }
    console.findings(outcome.findings);
    if (record.machine_load && record.machine_load->loaded())
      console.warnings({"the machine was loaded while this run ran: " + record.machine_load->describe() +
                        ": every figure may be slowed by it"});
    console.summary(outcome.results, dir, outcome.cases_planned, signal_name(outcome.stop_signal));
    if (outcome.stop_signal != 0) {
      std::cout << "to finish it:";
      for (const auto& word : options.command) std::cout << ' ' << shell_word(word);
      std::cout << " --resume " << shell_word(dir) << '\n';
    }
  }
  if (outcome.stop_signal != 0) return kExitSignalBase + outcome.stop_signal;
  // 5. Figures, if asked for; a plotting failure is reported but leaves the results intact.
  //    The other ranks wait for rank 0's plot.py, so it has a budget too: the longest case's,
  //    at least the 60 s floor of a case's (a plot takes seconds, a case budget may be fewer).
  //    A Ctrl-C ends it: under a launcher it may reach the ranks and not the script.
  int plot_code = 0;  // plot.py's exit code
  if (options.plot && mpi.is_root()) {
    std::cout.flush();
    const double budget_s = std::max(kCaseBudgetFloorS, longest_budget_s);
    plot_code = plot_results(dir, budget_s, [] { return stop_signal_received() != 0; });
    if (plot_code == kScriptTimedOut) {
      std::cerr << "minigpu: error: scripts/plot.py had not finished after " << io::significant(budget_s, 3)
                << " s (the longest case budget, at least " << io::significant(kCaseBudgetFloorS, 2)
                << " s) and was ended; the results in " << dir << " are complete\n";
    } else if (plot_code != 0 && stop_signal_received() == 0) {
      std::cerr << "minigpu: error: scripts/plot.py failed on " << dir << '\n';
    }
  }
  // Every rank agrees on the exit code: a stop signal any rank took while the figures were
  // drawn, then the verification, then the figures.
  const std::vector<double> agreed = comm::max_over_ranks(
      {static_cast<double>(stop_signal_received()), plot_code != 0 ? 1.0 : 0.0}, ctx.comm);
  const int stop = static_cast<int>(agreed[0]);
  if (stop != 0 && agreed[1] != 0) {
    if (mpi.is_root()) {
      std::cerr << "minigpu: interrupted by " << signal_name(stop)
                << " while drawing the figures; the results in " << dir << " are complete (scripts/plot.py "
                << shell_word(dir) << " draws them)\n";
    }
    return kExitSignalBase + stop;
  }
  if (!outcome.all_verified) return kExitVerifyFailed;
  return agreed[1] == 0 ? kExitOk : kExitRuntimeError;
}

}  // namespace minigpu
