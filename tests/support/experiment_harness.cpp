// The harness writes a real file so positions in error messages are real too.
#include "experiment_harness.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>
#include <cstdio>
#include <fstream>

namespace minigpu::testing {
namespace {

std::string temp_input(const std::string& yaml) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string path =
      "/tmp/minigpu-test-" + std::to_string(::getpid()) + "-" + std::to_string(rank) + ".yaml";
  std::ofstream(path) << yaml;
  return path;
}

RunContext world() { return RunContext::on(comm::Communicator::world()); }

// The plan of `yaml`, configured with `ctx`: the context the run then uses, as `minigpu run`
// uses one (its chooser and calibration log are the experiments' and the runner's alike).
RunPlan plan_with(const std::string& yaml, const std::vector<std::string>& overrides, RunContext& ctx) {
  const std::string path = temp_input(yaml);
  PlanOptions options;
  options.overrides = overrides;
  try {
    RunPlan plan =
        load_run_plan(path, ctx, options, [](const RunSettings& s, RunContext&) { settle_devices(s); });
    std::remove(path.c_str());
    return plan;
  } catch (...) {
    std::remove(path.c_str());
    throw;
  }
}

}  // namespace

RunPlan plan_yaml(const std::string& yaml, const std::vector<std::string>& overrides) {
  RunContext ctx = world();
  return plan_with(yaml, overrides, ctx);
}

RunOutcome run_yaml(const std::string& yaml) { return run_yaml(yaml, {}); }

RunOutcome run_yaml(const std::string& yaml, const StopPoll& stop,
                    const std::map<std::string, CaseResult>& resumed) {
  RunContext ctx = world();
  RunPlan plan = plan_with(yaml, {}, ctx);
  return run_plan(plan, ctx, nullptr, stop, resumed);
}

const Finding* find_finding(const std::vector<Finding>& findings, const std::string& name) {
  for (const auto& f : findings) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

int world_rank() { return world().rank(); }
int world_size() { return world().ranks(); }

void expect_key_error(const std::string& experiment, const std::string& entry, const std::string& key,
                      const std::string& words) {
  try {
    plan_yaml("run: {warmups: 0, repetitions: 1}\nexperiments:\n  - name: " + experiment + "\n" + entry);
    ADD_FAILURE() << "no InputError for:\n" << entry;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'experiments[0]." + key + "'"), std::string::npos) << what;
    EXPECT_NE(what.find(words), std::string::npos) << what;
  }
}

}  // namespace minigpu::testing
