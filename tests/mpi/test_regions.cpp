// Profiling regions seen through Kokkos' tool hooks, as kp_space_time_stack or Nsight Systems
// see them: every case of every registered experiment nests as
// minigpu/<experiment>/<case>/<phase>, the scaling studies add comm and compute inside run,
// a failing phase leaves no region open, and every kernel is labelled Component::op.
#include "engine/registry.hpp"
#include "experiment_harness.hpp"
#include "kokkos_events.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace minigpu {
namespace {

using testing::KokkosRegionTrace;
using Path = std::vector<std::string>;

// The regions each experiment opens inside its cases' `run` phase.
const std::map<std::string, std::vector<std::string>> kInnerRegions = {
    {"matmul_scaling", {"comm", "compute"}},
    {"multi_gpu_concurrency", {"compute"}},
};

const std::set<std::string> kPhases = {"setup", "warmup", "run", "verify", "teardown"};

// The experiment's smallest input, as its registration gives it.
std::string yaml_for(const std::string& name) {
  const std::string keys = ExperimentRegistry::find(name)->smallest_keys;
  return "run: {warmups: 1, repetitions: 2}\nexperiments:\n  - {name: " + name +
         (keys.empty() ? "" : ", " + keys) + "}\n";
}

RunContext world() { return RunContext::on(comm::Communicator::world()); }

// Where `path` was first pushed, or -1.
long first_push(const Path& path) {
  const auto& all = KokkosRegionTrace::regions();
  const auto found = std::find(all.begin(), all.end(), path);
  return found == all.end() ? -1 : static_cast<long>(found - all.begin());
}

std::string joined(const Path& path) {
  std::string out;
  for (const auto& part : path) out += (out.empty() ? "" : "/") + part;
  return out;
}

std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const auto& info : ExperimentRegistry::all()) names.push_back(info.name);
  return names;
}

// Every registered experiment is run from its registered smallest input: one registered
// without a usable one (a key it refuses, no case) fails here and in the run below.
TEST(ProfilingRegions, EveryRegisteredExperimentPlansFromItsSmallestInput) {
  ASSERT_FALSE(registered_names().empty());
  for (const auto& name : registered_names()) {
    EXPECT_NO_THROW(EXPECT_FALSE(testing::plan_yaml(yaml_for(name)).experiments.at(0).cases.empty()))
        << name << ": " << yaml_for(name);
  }
}

class ExperimentRegions : public ::testing::TestWithParam<std::string> {};

TEST_P(ExperimentRegions, CasesNestTheirPhasesAndKernelsAreLabelledComponentOp) {
  const std::string name = GetParam();
  RunPlan plan = testing::plan_yaml(yaml_for(name));  // configuring belongs to no case
  KokkosRegionTrace trace;
  const RunOutcome out = run_plan(plan, world(), nullptr);
  ASSERT_FALSE(out.results.empty());
  EXPECT_TRUE(out.all_verified);
  EXPECT_EQ(KokkosRegionTrace::open(), 0u) << "a region was left open";
  EXPECT_EQ(KokkosRegionTrace::unmatched_pops(), 0) << "a region was popped twice";

  std::set<std::string> labels;
  for (const auto& r : out.results) labels.insert(r.spec.label);
  for (const Path& p : KokkosRegionTrace::regions()) {
    EXPECT_EQ(p[0], "minigpu") << joined(p);
    if (p.size() > 1) {
      EXPECT_EQ(p[1], name) << joined(p);
    }
    if (p.size() > 2 && p[2] == "summarize") continue;  // after the cases: free-form inside
    if (p.size() > 2) {
      EXPECT_EQ(labels.count(p[2]), 1u) << joined(p) << ": not a case of the run";
    }
    if (p.size() > 3) {
      EXPECT_EQ(kPhases.count(p[3]), 1u) << joined(p) << ": not a phase";
    }
    if (p.size() > 4 && (p[4] == "comm" || p[4] == "compute")) {
      EXPECT_TRUE(p[3] == "run" || p[3] == "warmup") << joined(p);
    }
  }
  for (const auto& label : labels) {
    const long setup = first_push({"minigpu", name, label, "setup"});
    const long warmup = first_push({"minigpu", name, label, "warmup"});
    const long run = first_push({"minigpu", name, label, "run"});
    const long verify = first_push({"minigpu", name, label, "verify"});
    EXPECT_GE(setup, 0) << label;
    EXPECT_LT(setup, warmup) << label;
    EXPECT_LT(warmup, run) << label;
    EXPECT_LT(run, verify) << label;
  }
  const auto inner = kInnerRegions.find(name);
  if (inner != kInnerRegions.end()) {
    for (const auto& region : inner->second) {
      const auto& all = KokkosRegionTrace::regions();
      const bool seen = std::any_of(all.begin(), all.end(), [&](const Path& p) {
        return p.size() == 5 && p[3] == "run" && p[4] == region;
      });
      EXPECT_TRUE(seen) << "no " << region << " region inside any case's run";
    }
  }

  // Kokkos' own kernels (View initialisation, fills) and KokkosKernels' are named by them.
  const std::regex component_op("[a-z][a-z0-9_]*::[a-z][a-z0-9_]*");
  for (const auto& k : KokkosRegionTrace::kernels()) {
    if (k.label.rfind("Kokkos", 0) == 0) continue;
    EXPECT_TRUE(std::regex_match(k.label, component_op)) << "kernel '" << k.label << "'";
    const bool summarizing = k.regions.size() >= 3 && k.regions[2] == "summarize";
    EXPECT_TRUE(k.regions.size() >= 4 || summarizing)
        << "kernel '" << k.label << "' runs outside every case's phases and summaries";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryRegisteredExperiment, ExperimentRegions,
                         ::testing::ValuesIn(registered_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

// Every rank fails at the same point, so no rank waits in a collective for one that threw.
TEST(ProfilingRegions, AFailingPhaseLeavesNoRegionOpen) {
  const int rank = comm::Communicator::world().rank();
  for (const std::string point : {"setup", "run", "verify"}) {
    RunPlan plan = testing::plan_yaml(yaml_for("matmul"));
    KokkosRegionTrace trace;
    const std::string fault = std::to_string(rank) + ":" + point;
    RunContext ctx = world();
    ctx.faults = std::make_shared<FaultInjection>();
    ::setenv("MINIGPU_INJECT_FAULT", fault.c_str(), 1);
    *ctx.faults = FaultInjection::from_environment();
    ::unsetenv("MINIGPU_INJECT_FAULT");
    EXPECT_THROW(run_plan(plan, ctx, nullptr), std::runtime_error) << point;
    EXPECT_FALSE(KokkosRegionTrace::regions().empty()) << point;
    EXPECT_EQ(KokkosRegionTrace::open(), 0u) << "failing at " << point;
    EXPECT_EQ(KokkosRegionTrace::unmatched_pops(), 0) << point;
  }
}

}  // namespace
}  // namespace minigpu
