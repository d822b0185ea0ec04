// Runs an input given as YAML text through the real loader and runner, for smoke tests.
#pragma once

#include "engine/plan.hpp"
#include "engine/runner.hpp"

#include <map>
#include <string>

namespace minigpu::testing {

/// Writes `yaml` to a temporary file, loads it as `minigpu run` does, runs every case on
/// MPI_COMM_WORLD and returns the outcome. Throws InputError for invalid input.
RunOutcome run_yaml(const std::string& yaml);
/// The same, with the runner's stop poll and a resumed run's recorded cases (run_plan's).
RunOutcome run_yaml(const std::string& yaml, const StopPoll& stop,
                    const std::map<std::string, CaseResult>& resumed = {});

/// Loads (validates and configures) without running; throws InputError for invalid input.
RunPlan plan_yaml(const std::string& yaml, const std::vector<std::string>& overrides = {});

/// The finding called `name` in `findings`, or nullptr.
const Finding* find_finding(const std::vector<Finding>& findings, const std::string& name);

/// This process's rank and the job's size on MPI_COMM_WORLD.
int world_rank();
int world_size();

/// Expects an input with one `experiment` entry plus the lines `entry` to be rejected with
/// an InputError naming key 'experiments[0].<key>' (and containing `words`, if given).
void expect_key_error(const std::string& experiment, const std::string& entry, const std::string& key,
                      const std::string& words = "");

}  // namespace minigpu::testing
