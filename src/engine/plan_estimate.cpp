// A run-time model coarse on purpose: it orders magnitudes, it does not predict.
#include "engine/plan_estimate.hpp"

#include "io/format.hpp"

#include <algorithm>

namespace minigpu {
namespace {

constexpr double kLaunchSeconds = 20e-6;  // per repetition: fences, a barrier, a kernel launch
// Where no ceiling was measured: slow enough not to promise too much on a small machine.
constexpr double kFallbackBytesPerS = 5e9, kFallbackFlopsPerS = 5e9;

double rate_of(const CeilingTable& t, const std::string& name, double fallback) {
  const Ceiling* c = t.find(name);
  return c && c->value > 0 ? c->value * 1e9 : fallback;
}

}  // namespace

double estimate_case_seconds(const PlannedExperiment& planned, const CaseSpec& spec,
                             const CeilingTable& ceilings) {
  const double bytes_per_s = rate_of(ceilings, copy_ceiling(spec.device, false, false),
                                     rate_of(ceilings, "host_memcpy", kFallbackBytesPerS));
  const double flops_per_s = rate_of(ceilings, gemm_ceiling(spec.device, spec.dtype), kFallbackFlopsPerS);
  const double one = kLaunchSeconds + std::max(2.0 * static_cast<double>(spec.device_bytes) / bytes_per_s,
                                               spec.flops_estimate / flops_per_s);
  const RoundRule round = planned.round_rule();
  const double timed = std::max(one * round.repetitions, round.max_time_s);  // a budget fills its time
  return planned.rounds * (one * planned.warmups + timed);
}

double case_budget_s(const PlannedExperiment& planned, const CaseSpec& spec, const CeilingTable& ceilings) {
  if (planned.case_timeout_s > 0) return planned.case_timeout_s;
  return std::max(kCaseBudgetFloorS, kCaseBudgetFactor * estimate_case_seconds(planned, spec, ceilings));
}

PlanEstimate estimate_plan(const RunPlan& plan, const CeilingTable& ceilings) {
  PlanEstimate e;
  for (const auto& planned : plan.experiments) {
    if (planned.target_cv > 0 || planned.max_time_s > 0) e.open_ended = true;
    for (const auto& spec : planned.cases) e.seconds += estimate_case_seconds(planned, spec, ceilings);
  }
  e.basis = ceilings.ceilings.empty()
                ? "no ceilings cached for this host and build: assumed 5 GB/s and 5 GFLOP/s"
                : "this machine's cached ceilings";
  return e;
}

std::string describe(const PlanEstimate& e) {
  return std::string("estimated run time: ") + (e.open_ended ? "up to about " : "about ") +
         io::significant(e.seconds, 2) +
         " s (each repetition: its memory touched twice and its flops done at " +
         "the ceiling rates, plus 20 us; " + e.basis + ")";
}

std::vector<std::string> device_warnings(const RunPlan& plan) {
  std::vector<std::string> out;
  // Entries appear in the resolved input in plan order, some perhaps left out by --only.
  const auto& entries = plan.resolved_input.at("experiments");
  std::size_t j = 0;
  for (std::size_t i = 0; i < plan.experiments.size(); ++i) {
    while (j < entries.size() && entries[j].value("name", std::string()) != plan.experiments[i].name) ++j;
    if (j == entries.size()) break;
    const std::string asked = entries[j++].value("device", std::string());
    if (asked != "auto" && asked.rfind("gpu", 0) != 0) continue;
    for (const auto& spec : plan.experiments[i].cases) {
      if (!uses_host_memory(spec.device)) continue;
      out.push_back("experiment '" + plan.experiments[i].name + "' asks for device '" + asked +
                    "' but runs on " + describe(spec.device) +
                    (spec.device.is_gpu() ? ": an emulated GPU is host memory, so its figures are the CPU's"
                                          : ": no GPU here (try_gpu() falls back to the cpu)"));
      break;
    }
  }
  return out;
}

std::vector<std::string> round_notes(const RunPlan& plan) {
  std::vector<std::string> out;
  for (const auto& planned : plan.experiments) {
    if (planned.rounds <= 1) continue;
    const std::size_t n = planned.cases.size();
    out.push_back(planned.name + " takes its " + std::to_string(n) + " case" + (n == 1 ? "" : "s") +
                  " in turn, " + std::to_string(planned.rounds) + " rounds over (" +
                  std::to_string(planned.round_rule().repetitions) +
                  " repetition(s) a round): its rows print when the last round ends");
  }
  return out;
}

}  // namespace minigpu
