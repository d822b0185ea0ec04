// An input file, validated as a whole before anything runs: the `run:` settings and the
// configured experiments, with the resolved input (defaults filled in) kept for the record.
#pragma once

#include "ceilings/ceilings.hpp"
#include "engine/experiment.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace minigpu {

/// A case's repetitions, warm-ups and budgets apply per round: a case in `rounds` rounds takes
/// its warm-ups in each and its repetitions and wall-time budget in equal shares (rounded up).
inline constexpr int kMaxRounds = 1000;
/// The wall-time budget of target_cv without max_time_s.
inline constexpr double kDefaultAdaptiveBudgetS = 10;

/// When one round of a case stops repeating (runner.hpp's repetition_stop_reason).
struct RoundRule {
  int repetitions = 5;    ///< the minimum, and the count unless target_cv or max_time_s is set
  double target_cv = 0;   ///< > 0: repeat past `repetitions` until the round's cv is this small
  double max_time_s = 0;  ///< > 0: the round's wall-time budget (0: none, no repeating past)
};

struct RunSettings {
  std::string name;
  std::string output_dir = "results";
  std::string output_dir_source;  ///< where output_dir was set, for errors: "file:l:c: key '…'"
  int warmups = 1;
  int repetitions = 5;        ///< the minimum, and the count unless target_cv or max_time_s is set
  double target_cv = 0;       ///< > 0: repeat past `repetitions` until the times' cv is this small
  double max_time_s = 0;      ///< > 0: repeat past `repetitions` while timed seconds are below this
  double case_timeout_s = 0;  ///< > 0: a case may go this long without progress (else: from its estimate)
  int rounds = 1;             ///< > 1: each experiment's cases timed in turn, this many times over
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
  /// Rounds over the experiment's cases: each round sets every case up, warms it up, times its
  /// share of the repetitions, verifies it and tears it down, case after case, so that a slow
  /// spell of the machine falls on every case alike (as BabelStream's kernels take turns in each
  /// of its iterations, and RAJAPerf's passes go over every kernel).
  int rounds = 1;
  std::unique_ptr<Experiment> experiment;
  std::vector<CaseSpec> cases;
  /// "file:line:col: key '…'" of each case's size_key, for errors about a case's size.
  std::map<std::string, std::string> key_locations;

  /// One round's share: the repetitions and the wall-time budget divided among the rounds,
  /// rounded up (the default 10 s of a target_cv alone too); target_cv as it is.
  RoundRule round_rule() const {
    const double budget = max_time_s > 0 ? max_time_s : (target_cv > 0 ? kDefaultAdaptiveBudgetS : 0);
    return {(repetitions + rounds - 1) / rounds, target_cv, budget / rounds};
  }
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

/// What the program's top (app/, a test's harness) does with the devices an input asks for
/// (run.emulate_gpus) once its run section is read and before any experiment lists its cases by
/// the devices the process has: settle_devices, and for `minigpu run` the rank's binding again
/// (in `ctx`, the context the experiments are then configured with).
using DeviceSettler = std::function<void(const RunSettings& settings, RunContext& ctx)>;

/// Applies `run.emulate_gpus` to the process's GpuEmulation (the one device state a process
/// has, main's: see core/device.hpp). The usual DeviceSettler, or the start of one.
void settle_devices(const RunSettings& settings);
/// Whether the process's devices are those `settings` ask for.
bool devices_as_settled(const RunSettings& settings);
/// Reads the input once: the run section (InputError, exit 2, on bad values), then
/// `settle(settings, ctx)`, then every experiment validated and configured with `ctx`. An input
/// asking for devices the process lacks after `settle` (or without one) is a std::logic_error:
/// the program's top forgot to settle them.
RunPlan load_run_plan(const std::string& path, RunContext& ctx, const PlanOptions& options,
                      const DeviceSettler& settle);

/// Every key an input may hold, as the readers declare it (ConfigNode::declared()): {"run",
/// "every_experiment", "experiments": {name: keys}}, from an input that sets none of them, so
/// defaults are those of a job like `ctx`.
nlohmann::json declared_input_keys(const RunContext& ctx);

}  // namespace minigpu
