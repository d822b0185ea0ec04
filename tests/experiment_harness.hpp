// Runs an input given as YAML text through the real loader and runner, for smoke tests.
#pragma once

#include "config/run_config.hpp"
#include "experiments/runner.hpp"

#include <string>

namespace minigpu::testing {

/// Writes `yaml` to a temporary file, loads it as `minigpu run` does, runs every case on
/// MPI_COMM_WORLD and returns the outcome. Throws InputError for invalid input.
RunOutcome run_yaml(const std::string& yaml);

/// Loads (validates and configures) without running; throws InputError for invalid input.
RunPlan plan_yaml(const std::string& yaml);

}  // namespace minigpu::testing
