// One round of a case, and a case's row from its rounds.
#include "engine/case_round.hpp"

#include "comm/collectives.hpp"
#include "comm/typed_exchange.hpp"
#include "core/fault_injection.hpp"
#include "core/profile_region.hpp"
#include "core/progress.hpp"
#include "core/stopwatch.hpp"
#include "engine/stats.hpp"
#include "io/format.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>

namespace minigpu::detail {
namespace {

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

// The round's verification, agreed over ranks, kept in `so_far` unless an earlier round failed.
void verify_round(Experiment& e, const RunContext& ctx, CaseTimings& so_far) {
  const ProfileRegion region("verify");
  ctx.faults->at("verify", ctx.rank());
  Check local = e.verify();
  Check agreed(comm::all_ranks(local.passed, ctx.comm), local.detail, local.error);
  if (local.passed && !agreed.passed) agreed.detail += " (failed on another rank)";
  if (so_far.rounds == 0 || so_far.check.passed) so_far.check = agreed;
}

}  // namespace

int agreed_stop(const StopPoll& stop, const comm::Communicator& comm) {
  const double mine = stop ? static_cast<double>(stop()) : 0.0;
  return static_cast<int>(comm::max_over_ranks(mine, comm));
}

bool measure_round(PlannedExperiment& planned, const CaseSpec& spec, const RoundRule& rule,
                   const RunContext& ctx, const StopPoll& stop, CaseTimings& so_far) {
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
  // From here to the round's end a calibration would be timed as the case's own work.
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
      if (stopped()) return false;
      progress::repetition(0);
      time_one_repetition(e, true, ctx.comm, nullptr);
    }
  }
  std::optional<ProfileRegion> run_region(std::in_place, "run");
  PhaseClock clock;
  e.attach_phase_clock(&clock);
  std::vector<double> local, global;  // this round's
  std::optional<std::string> why;
  const CpuWaitSample wait_before = sample_cpu_wait();
  const auto loop_start = Clock::now();
  double elapsed = 0;  // of the repetition loop, wall clock, the slowest rank's
  const auto minimum = static_cast<std::size_t>(rule.repetitions);
  while (!(why = repetition_stop_reason(rule, global, elapsed))) {
    if (stopped()) return false;
    progress::repetition(static_cast<int>(so_far.local.size() + local.size()) + 1);
    // A test's MINIGPU_INJECT_DELAY is added to the recorded time, never run inside the clock:
    // the measured region holds the experiment's own work alone.
    local.push_back(time_one_repetition(e, spec.fence_after_run, ctx.comm, &clock) + delay);
    so_far.phase_reps.push_back(clock.phases());
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
  if (!waited) {
    so_far.waited.reset();
  } else if (so_far.waited && (so_far.rounds == 0 || waited->share() > so_far.waited->share())) {
    so_far.waited = waited;
  }
  so_far.local.insert(so_far.local.end(), local.begin(), local.end());
  so_far.global.insert(so_far.global.end(), global.begin(), global.end());
  so_far.stopped_by = *why;
  verify_round(e, ctx, so_far);
  ++so_far.rounds;
  const ProfileRegion region("teardown");
  e.teardown();
  return true;
}

CaseResult case_result(const PlannedExperiment& planned, const CaseSpec& spec, const RunContext& ctx,
                       const std::vector<std::string>& hosts, const CaseTimings& timings) {
  CaseResult r;
  r.experiment = planned.name;
  r.spec = spec;
  r.repetitions = static_cast<int>(timings.local.size());
  r.repetitions_stopped_by = timings.stopped_by;
  // The wall time of a parallel repetition is its slowest rank.
  r.samples = timings.global;
  r.seconds = summarize(r.samples);
  // One gather carries what each rank saw: its mean, whether it worked, and its CPU wait.
  const std::optional<CpuWait>& waited = timings.waited;
  const std::vector<RankTiming> ranks =
      comm::allgather_values(RankTiming{summarize(timings.local).mean, spec.this_rank_works,
                                        waited.has_value(), waited.value_or(CpuWait{})},
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
  r.phases = reduce_phases(timings.phase_reps, ctx.comm);
  r.work = spec.work;
  if (r.seconds.median > 0) {
    r.gbps = r.work.bytes / r.seconds.median / 1e9;
    r.gflops = r.work.flops / r.seconds.median / 1e9;
  }
  r.check = timings.check;
  return r;
}

}  // namespace minigpu::detail
