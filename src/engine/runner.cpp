// One timing discipline for every experiment.
#include "engine/runner.hpp"

#include "ceilings/ceilings.hpp"
#include "comm/collectives.hpp"
#include "comm/mpi_session.hpp"
#include "comm/typed_exchange.hpp"
#include "core/binding.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/fault_injection.hpp"
#include "core/host_threads.hpp"
#include "core/machine_load.hpp"
#include "core/profile_region.hpp"
#include "core/progress.hpp"
#include "core/stopwatch.hpp"
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

constexpr double kDefaultAdaptiveBudgetS = 10;  // target_cv without max_time_s
constexpr std::size_t kMaxAdaptiveRepetitions = 1000000;
// A row whose repetitions vary more than this is noise-dominated: its figure is flagged.
constexpr double kNoisyRowCv = 0.25;
constexpr const char* kStragglerTag = "straggler: ";

// One rank's view of a case, gathered on every rank in one collective.
struct RankTiming {
  double mean = 0;  // of its repetitions, seconds
  bool works = false;
  bool waited = false;  // `wait` was readable from /proc
  CpuWait wait;
};
template <class Archive>
void fields(Archive& a, RankTiming& t) {
  a(t.mean, t.works, t.waited, t.wait.queued, t.wait.stolen);
}

// Phase times per repetition -> per phase, stats of the slowest rank's time. Every rank
// must report the same phases; a mismatch is a bug, reported identically on all ranks.
std::vector<std::pair<std::string, Stats>> reduce_phases(
    const std::vector<std::vector<std::pair<std::string, double>>>& reps, const comm::Communicator& comm) {
  std::string names;
  for (const auto& [name, seconds] : reps.front()) names += name + ";";
  for (const auto& rank_names : comm::allgather_strings(names, comm)) {
    if (rank_names != names)
      throw std::logic_error("ranks report different phases: '" + names + "' vs '" + rank_names + "'");
  }
  std::vector<std::pair<std::string, Stats>> out;
  for (std::size_t k = 0; k < reps.front().size(); ++k) {
    std::vector<double> seconds;
    seconds.reserve(reps.size());
    for (const auto& rep : reps) seconds.push_back(k < rep.size() ? rep[k].second : 0.0);
    out.emplace_back(reps.front()[k].first, summarize(comm::max_over_ranks(seconds, comm)));
  }
  return out;
}

// The signal the ranks agree to stop on (the largest any rank saw), or 0. Collective.
int agreed_stop(const StopPoll& stop, const comm::Communicator& comm) {
  const double mine = stop ? static_cast<double>(stop()) : 0.0;
  return static_cast<int>(comm::max_over_ranks(mine, comm));
}

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

// One case; nullopt when a stop was agreed between repetitions (the case is dropped, so a
// long case does not hold the run past a launcher's grace period).
std::optional<CaseResult> measure_case(PlannedExperiment& planned, const CaseSpec& spec,
                                       const RunContext& ctx, const StopPoll& stop,
                                       const std::vector<std::string>& hosts) {
  Experiment& e = *planned.experiment;
  // Tools show minigpu/<experiment>/<case>/{setup,warmup,run,verify}; experiments add
  // their own regions (comm, compute) inside run. Regions end with their phase's work fenced.
  const ProfileRegion case_region(spec.label);
  {
    const ProfileRegion region("setup");
    ctx.faults->at("setup", ctx.rank());
    e.setup(spec);
    Kokkos::fence();
  }
  // From here to the case's end a calibration would be timed as the case's own work.
  struct Forbidden {
    CalibrationLog* log;
    explicit Forbidden(CalibrationLog* l) : log(l) {
      if (log) log->forbid(true);
    }
    ~Forbidden() {
      if (log) log->forbid(false);
    }
  } const forbidden(ctx.calibration.get());
  ctx.faults->at("run", ctx.rank());
  const double delay = ctx.faults->delay_s(planned.name);
  const auto stopped = [&] {
    if (agreed_stop(stop, ctx.comm) == 0) return false;
    e.attach_phase_clock(nullptr);
    Kokkos::fence();
    e.teardown();
    return true;
  };
  if (planned.warmups > 0) {
    const ProfileRegion region("warmup");
    for (int i = 0; i < planned.warmups; ++i) {
      if (stopped()) return std::nullopt;
      progress::repetition(0);
      time_one_repetition(e, true, ctx.comm, nullptr);
    }
  }
  std::optional<ProfileRegion> run_region(std::in_place, "run");
  PhaseClock clock;
  e.attach_phase_clock(&clock);
  std::vector<double> local, global;
  std::vector<std::vector<std::pair<std::string, double>>> phase_reps;
  std::optional<std::string> why;
  const CpuWaitSample wait_before = sample_cpu_wait();
  const auto loop_start = Clock::now();
  double elapsed = 0;  // of the repetition loop, wall clock, the slowest rank's
  const auto minimum = static_cast<std::size_t>(planned.repetitions);
  while (!(why = repetition_stop_reason(planned, global, elapsed))) {
    if (stopped()) return std::nullopt;
    progress::repetition(static_cast<int>(local.size()) + 1);
    // A test's MINIGPU_INJECT_DELAY is added to the recorded time, never run inside the clock:
    // the measured region holds the experiment's own work alone.
    local.push_back(time_one_repetition(e, spec.fence_after_run, ctx.comm, &clock) + delay);
    phase_reps.push_back(clock.phases());
    // The ranks agree on the times at the minimum (one reduction), then, when repeating
    // adaptively, on each new time and the elapsed time; below it only the count matters.
    if (local.size() < minimum) {
      global.push_back(0);
    } else if (local.size() == minimum) {
      global = comm::max_over_ranks(local, ctx.comm);
      elapsed = comm::max_over_ranks(seconds_since(loop_start), ctx.comm);
    } else {
      const auto newest =
          comm::max_over_ranks(std::vector<double>{local.back(), seconds_since(loop_start)}, ctx.comm);
      global.push_back(newest[0]);
      elapsed = newest[1];
    }
  }
  e.attach_phase_clock(nullptr);
  Kokkos::fence();  // an unfenced case may still be running; verify sees finished data
  run_region.reset();
  const std::optional<CpuWait> waited = cpu_wait_between(wait_before, sample_cpu_wait());

  CaseResult r;
  r.experiment = planned.name;
  r.spec = spec;
  r.repetitions = static_cast<int>(local.size());
  r.repetitions_stopped_by = *why;
  // The wall time of a parallel repetition is its slowest rank.
  r.samples = global;
  r.seconds = summarize(r.samples);
  // One gather carries what each rank saw: its mean, whether it worked, and its CPU wait.
  const std::vector<RankTiming> ranks = comm::allgather_values(
      RankTiming{summarize(local).mean, spec.this_rank_works, waited.has_value(), waited.value_or(CpuWait{})},
      ctx.comm);
  std::vector<double> means, working_means;
  std::vector<bool> works;
  for (const RankTiming& rank : ranks) {
    means.push_back(rank.mean);
    works.push_back(rank.works);
    if (rank.works) working_means.push_back(rank.mean);
  }
  r.rank_means = summarize(working_means.empty() ? means : working_means);
  // A slow node shows here long before it stalls a job: the row names it.
  // Its own CPU wait says whether the node held it back (a busy or stolen CPU) or its work did.
  if (const auto s = find_straggler(means, works)) {
    const RankTiming& slow = ranks.at(static_cast<std::size_t>(s->rank));
    r.mark_unreliable(std::string(kStragglerTag) + "rank " + std::to_string(s->rank) + " (" +
                      hosts.at(static_cast<std::size_t>(s->rank)) + ") took " + io::significant(s->ratio, 2) +
                      "x the next slowest rank's mean time" +
                      (slow.waited ? ", and " + slow.wait.describe() : ""));
  }
  r.phases = reduce_phases(phase_reps, ctx.comm);
  r.work = spec.work;
  if (r.seconds.median > 0) {
    r.gbps = r.work.bytes / r.seconds.median / 1e9;
    r.gflops = r.work.flops / r.seconds.median / 1e9;
  }
  {
    const ProfileRegion region("verify");
    ctx.faults->at("verify", ctx.rank());
    Check local_check = e.verify();
    r.check.passed = comm::all_ranks(local_check.passed, ctx.comm);
    r.check.detail = local_check.detail;
    r.check.error = local_check.error;
    if (local_check.passed && !r.check.passed) r.check.detail += " (failed on another rank)";
  }
  const ProfileRegion region("teardown");
  e.teardown();
  return r;
}

}  // namespace

std::optional<std::string> repetition_stop_reason(const PlannedExperiment& planned,
                                                  const std::vector<double>& times, double elapsed_s) {
  if (times.size() < static_cast<std::size_t>(planned.repetitions)) return std::nullopt;
  if (planned.target_cv <= 0 && planned.max_time_s <= 0) return std::string("repetitions");
  if (planned.target_cv > 0 && times.size() > 1 && summarize(times).cv <= planned.target_cv) {
    return std::string("target_cv");
  }
  const double budget = planned.max_time_s > 0 ? planned.max_time_s : kDefaultAdaptiveBudgetS;
  if (elapsed_s >= budget) return std::string("max_time_s");
  if (times.size() >= kMaxAdaptiveRepetitions) return std::string("max_repetitions");
  return std::nullopt;
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
    for (const auto& spec : planned.cases) {
      if ((outcome.stop_signal = agreed_stop(stop, ctx.comm)) != 0) break;
      // The watchdog's budget runs from here to the end of the observer (rank 0's write).
      std::optional<progress::Case> watched(
          std::in_place,
          planned.name + " " + spec.label + " " + describe(spec.device) + " " + to_string(spec.dtype),
          case_budget_s(planned, spec, plan.ceilings));
      std::optional<CaseResult> measured;
      const auto earlier = resumed.find(io::resume_key(planned.name, spec));
      if (earlier != resumed.end()) {
        planned.experiment->resumed(spec);
        measured = earlier->second;
        measured->experiment = planned.name;
        measured->spec = spec;
        measured->check.detail += CaseResult::kResumedMark;
      } else {
        measured = measure_case(planned, spec, ctx, stop, hosts);
      }
      if (!measured) {
        outcome.stop_signal = agreed_stop(stop, ctx.comm);
        break;
      }
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
    // A stop during a resumed case's setup (run for its model) gave up timings this experiment's
    // summary would read: the run ends here, as at a case boundary. (A case set up so is dropped
    // by the stop agreed before its first repetition.)
    if (outcome.stop_signal == 0 && ctx.calibration &&
        comm::max_over_ranks(ctx.calibration->gave_up() ? 1.0 : 0.0, ctx.comm) > 0)
      outcome.stop_signal = agreed_stop(stop, ctx.comm);
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
