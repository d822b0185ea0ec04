// One timing discipline for every experiment.
#include "engine/runner.hpp"

#include "ceilings/ceilings.hpp"
#include "comm/collectives.hpp"
#include "comm/mpi_session.hpp"
#include "core/binding.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/host_threads.hpp"
#include "core/machine_load.hpp"
#include "core/profile_region.hpp"
#include "core/progress.hpp"
#include "core/stopwatch.hpp"
#include "engine/case_round.hpp"
#include "engine/ceiling_share.hpp"
#include "engine/findings.hpp"
#include "engine/plan_estimate.hpp"
#include "engine/registry.hpp"
#include "engine/stats.hpp"
#include "io/format.hpp"
#include "io/run_record.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace minigpu {
namespace {

constexpr std::size_t kMaxAdaptiveRepetitions = 1000000;
// A row whose repetitions vary more than this is noise-dominated: its figure is flagged.
constexpr double kNoisyRowCv = 0.25;

// "" or why every timing of this rank is suspect: the ranks sharing its affinity mask run more
// threads than the mask has CPUs (a bound layout is judged by its own cores, not the node's).
std::string oversubscription(const DeviceBinding& b) {
  const bool known = !b.cpus.empty();
  const int cpus = known ? static_cast<int>(b.cpus.size()) : static_cast<int>(affinity_cpus().size());
  const int ranks = known ? b.cpu_sharing_ranks : std::max(1, b.local_size);
  const std::string crowded =
      cpu_oversubscription(cpus, ranks, Kokkos::DefaultHostExecutionSpace().concurrency());
  return crowded.empty() ? "" : crowded + " (oversubscribed)";
}

// Marks what the machine may explain: on an oversubscribed node, every figure. (Efficiencies
// flag what their own interval allows: efficiency_finding().)
void flag_unreliable(Finding& f, const std::string& crowded) {
  if (!f.value) return;
  if (!crowded.empty()) f.mark_unreliable(crowded);
}

}  // namespace

std::optional<std::string> repetition_stop_reason(const RoundRule& rule, const std::vector<double>& times,
                                                  double elapsed_s) {
  if (times.size() < static_cast<std::size_t>(rule.repetitions)) return std::nullopt;
  if (rule.target_cv <= 0 && rule.max_time_s <= 0) return std::string("repetitions");
  if (rule.target_cv > 0 && times.size() > 1 && summarize(times).cv <= rule.target_cv) {
    return std::string("target_cv");
  }
  if (elapsed_s >= rule.max_time_s) return std::string("max_time_s");
  if (times.size() >= kMaxAdaptiveRepetitions) return std::string("max_repetitions");
  return std::nullopt;
}

std::optional<std::string> repetition_stop_reason(const PlannedExperiment& planned,
                                                  const std::vector<double>& times, double elapsed_s) {
  return repetition_stop_reason(planned.round_rule(), times, elapsed_s);
}

double time_one_repetition(Experiment& experiment, bool fence_after, const comm::Communicator& comm,
                           PhaseClock* clock) {
  Kokkos::fence();
  comm::barrier(comm);
  const auto t0 = Clock::now();
  if (clock) clock->restart();
  experiment.run_once();
  if (fence_after) Kokkos::fence();
  return seconds_since(t0);
}

RunOutcome run_plan(RunPlan& plan, const RunContext& ctx, const CaseObserver& observer, const StopPoll& stop,
                    const std::map<std::string, CaseResult>& resumed) {
  RunOutcome outcome;
  outcome.started_utc = utc_now_iso8601();
  int total = 0;
  for (const auto& planned : plan.experiments) total += static_cast<int>(planned.cases.size());
  outcome.cases_planned = total;
  const auto t0 = Clock::now();
  const std::string crowded = oversubscription(ctx.binding);
  // Collective: ranks bound to one physical GPU time each other's kernels (gpu_check.sh runs
  // two ranks on one GPU on purpose); their GPU rows say so.
  const std::string shared_gpu =
      shared_gpu_reason(comm::allgather_strings(physical_gpu_key(processor_name(), ctx.binding), ctx.comm));
  const std::vector<std::string> hosts = comm::allgather_strings(processor_name(), ctx.comm);
  const ProfileRegion run_region("minigpu");
  // A stop gives up this rank's own calibration work that setups still ask for (CalibrationLog);
  // the poll is this run's, so it is taken back when the run ends.
  struct GivingUp {
    CalibrationLog* log;
    GivingUp(CalibrationLog* l, const StopPoll& stop) : log(l) {
      if (log && stop) log->give_up_when([stop] { return stop() != 0; });
    }
    ~GivingUp() {
      if (log) log->give_up_when(nullptr);
    }
  } const giving_up(ctx.calibration.get(), stop);
  int index = 0;
  for (auto& planned : plan.experiments) {
    const ProfileRegion experiment_region(planned.name);
    if (ctx.calibration) ctx.calibration->begin(planned.name);
    std::vector<CaseResult> mine;
    const RoundRule rule = planned.round_rule();
    std::vector<detail::CaseTimings> timings(planned.cases.size());
    // Each round takes the cases in turn (rounds > 1: run.rounds); a case's row is made, and
    // reported, in the last, so a stop in an earlier one keeps none of this experiment's rows.
    for (int round = 1; round <= planned.rounds && outcome.stop_signal == 0; ++round) {
      const bool last = round == planned.rounds;
      for (std::size_t c = 0; c < planned.cases.size(); ++c) {
        const CaseSpec& spec = planned.cases[c];
        if ((outcome.stop_signal = detail::agreed_stop(stop, ctx.comm)) != 0) break;
        // The watchdog's budget (the whole case's) runs from here to the end of the observer
        // (rank 0's write).
        std::optional<progress::Case> watched(
            std::in_place,
            planned.name + " " + spec.label + " " + describe(spec.device) + " " + to_string(spec.dtype) +
                (planned.rounds > 1
                     ? " (round " + std::to_string(round) + " of " + std::to_string(planned.rounds) + ")"
                     : ""),
            case_budget_s(planned, spec, plan.ceilings));
        std::optional<CaseResult> measured;
        const auto earlier = resumed.find(io::resume_key(planned.name, spec));
        if (earlier != resumed.end()) {
          if (round == 1) planned.experiment->resumed(spec);
          if (last) {
            measured = earlier->second;
            measured->experiment = planned.name;
            measured->spec = spec;
            measured->check.detail += CaseResult::kResumedMark;
          }
        } else if (!detail::measure_round(planned, spec, rule, ctx, stop, timings[c])) {
          outcome.stop_signal = detail::agreed_stop(stop, ctx.comm);
          break;
        } else if (last) {
          measured = detail::case_result(planned, spec, ctx, hosts, timings[c]);
        }
        if (!measured) continue;  // an earlier round: the row comes in the last
        CaseResult r = std::move(*measured);
        r.case_index = ++index;
        attach_ceiling(r, plan.ceilings);
        if (r.seconds.cv > kNoisyRowCv) {
          r.mark_unreliable("repetitions vary: cv " +
                            io::significant_apart(100 * r.seconds.cv, 100 * kNoisyRowCv) + " % above " +
                            io::significant(100 * kNoisyRowCv, 2) + " %");
        }
        if (!crowded.empty()) r.mark_unreliable(crowded);
        if (!shared_gpu.empty() && !uses_host_memory(r.spec.device)) r.mark_unreliable(shared_gpu);
        outcome.all_verified = outcome.all_verified && r.check.passed;
        if (observer) observer(r, index, total, seconds_since(t0));
        watched.reset();
        mine.push_back(r);
      }
    }
    // A stop during a resumed case's setup (run for its model) gave up timings this experiment's
    // summary would read: the run ends here, as at a case boundary. (A case set up so is dropped
    // by the stop agreed before its first repetition.)
    if (outcome.stop_signal == 0 && ctx.calibration &&
        comm::max_over_ranks(ctx.calibration->gave_up() ? 1.0 : 0.0, ctx.comm) > 0)
      outcome.stop_signal = detail::agreed_stop(stop, ctx.comm);
    if (outcome.stop_signal != 0) {
      outcome.results.insert(outcome.results.end(), mine.begin(), mine.end());
      break;
    }
    // Annotations and findings, from the results alone (nothing is timed here).
    const ProfileRegion summarize_region("summarize");
    // An experiment without conclusions is no Analysis: its rows stand alone.
    const auto* analysis = dynamic_cast<const Analysis*>(planned.experiment.get());
    if (analysis) analysis->annotate(mine);
    for (auto& f : analysis ? analysis->findings(mine) : std::vector<Finding>{}) {
      f.experiment = planned.name;
      ExperimentRegistry::check_declared(f.experiment, f.name, f.unit);
      flag_unreliable(f, crowded);
      inherit_unreliable_rows(f, mine);
      // One name, one finding: a repeated experiment entry's findings say which entry.
      const auto taken = [&](const std::string& name) {
        return std::any_of(outcome.findings.begin(), outcome.findings.end(),
                           [&](const Finding& g) { return g.experiment == f.experiment && g.name == name; });
      };
      if (taken(f.name)) {
        int entry = 2;
        while (taken(f.name + "_entry" + std::to_string(entry))) ++entry;
        f.name += "_entry" + std::to_string(entry);
      }
      outcome.findings.push_back(f);
    }
    if (auto [key, section] =
            analysis ? analysis->run_record_section() : std::pair<std::string, nlohmann::json>{};
        !key.empty())
      outcome.sections.emplace_back(key, section);
    outcome.results.insert(outcome.results.end(), mine.begin(), mine.end());
  }
  // What the experiments' setups asked the engine to time (this rank's: run.json is rank 0's).
  if (nlohmann::json timed = ctx.calibration ? ctx.calibration->record() : nullptr; !timed.is_null())
    outcome.sections.emplace_back("calibration", std::move(timed));
  outcome.finished_utc = utc_now_iso8601();
  return outcome;
}

}  // namespace minigpu
