// An input file, validated as a whole before anything runs: the `run:` settings and the
// configured experiments, with the resolved input (defaults filled in) kept for the record.
#pragma once

#include "ceilings/ceilings.hpp"
#include "engine/experiment.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace minigpu {

struct RunSettings {
  std::string name;
  std::string output_dir = "results";
  std::string output_dir_source;  ///< where output_dir was set, for errors: "file:l:c: key '…'"
  int warmups = 1;
  int repetitions = 5;    ///< the minimum, and the count unless target_cv or max_time_s is set
  double target_cv = 0;   ///< > 0: repeat past `repetitions` until the times' cv is this small
  double max_time_s = 0;  ///< > 0: repeat past `repetitions` while timed seconds are below this
  double case_timeout_s = 0;  ///< > 0: a case may go this long without progress (else: from its estimate)
  DType dtype = DType::f32;
  int emulate_gpus = -1;     ///< -1: leave MINIGPU_EMULATE_GPUS in charge
  bool require_gpu = false;  ///< a real GPU or exit 2: no emulated GPU, no cpu fallback
};

struct PlannedExperiment {
  std::string name;
  int warmups = 1;
  int repetitions = 5;
  double target_cv = 0;
  double max_time_s = 0;
  double case_timeout_s = 0;
  std::unique_ptr<Experiment> experiment;
  std::vector<CaseSpec> cases;
  /// "file:line:col: key '…'" of each case's size_key, for errors about a case's size.
  std::map<std::string, std::string> key_locations;
};

struct RunPlan {
  std::string input_file;
  RunSettings run;
  std::vector<PlannedExperiment> experiments;
  nlohmann::json resolved_input;
  std::vector<std::string> overrides;  ///< the --set PATH=VALUE applied, in order
  /// The machine's reference figures each row's rate is set against (empty: none measured).
  CeilingTable ceilings;
};

/// Command-line choices that shape the plan.
struct PlanOptions {
  std::optional<std::string> output_dir;  ///< overrides run.output_dir
  std::vector<std::string> only;          ///< run only these experiments (empty: all)
  std::vector<std::string> overrides;     ///< "PATH=VALUE" from --set (config/overrides.hpp)
  double case_timeout_s = 0;              ///< > 0: --case-timeout, over every case_timeout of the input
};

/// Loading a plan is two steps, because experiments list their cases by the devices the
/// process has, and the input may change those (run.emulate_gpus):
///   1. load_run_settings reads the run section (InputError, exit 2, on bad values);
///   2. the program's top (app/, a test's harness) settles the devices it asked for
///      (settle_devices: process state, so never done while loading);
///   3. load_run_plan reads, validates and configures everything; throws InputError, and
///      std::logic_error when step 2 was skipped for an input that needs it.
RunSettings load_run_settings(const std::string& path, const PlanOptions& options);
void settle_devices(const RunSettings& settings);
/// Whether the process's devices are those `settings` ask for.
bool devices_as_settled(const RunSettings& settings);
RunPlan load_run_plan(const std::string& path, const RunContext& ctx, const PlanOptions& options);

/// Every key an input may hold, as the readers declare it (ConfigNode::declared()): {"run",
/// "every_experiment", "experiments": {name: keys}}, from an input that sets none of them, so
/// defaults are those of a job like `ctx`.
nlohmann::json declared_input_keys(const RunContext& ctx);

}  // namespace minigpu
