// The files of a run: results.csv (tidy rows) and run.json (provenance + every result),
// written into a temporary directory that is renamed into place only when complete.
#pragma once

#include "core/machine_load.hpp"
#include "io/ceiling_table.hpp"
#include "io/provenance.hpp"
#include "io/results.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace minigpu::io {

/// What `kernel: auto` measured to choose a GEMM, by case shape ("host/float32/1024").
struct GemmChoiceRecord {
  struct Measured {
    std::string key;
    double vendor_s = 0, native_s = 0;
    std::string measured, on;  ///< when (UTC) and where
  };
  std::vector<Measured> entries;
  std::string source;  ///< "measured now" or the cache file's path
};

/// A case's `kernel_choice` when `kernel: auto` chose: "auto→<kernel> (<why>)", made here so
/// that `minigpu compare` can read the pick back; `auto_pick` gives the kernel, or "" for a
/// choice the input named ("native: named in the input").
std::string auto_choice(const std::string& kernel, const std::string& why);
std::string auto_pick(const std::string& kernel_choice);

enum class RunStatus { running, complete, interrupted, failed };
std::string to_string(RunStatus status);

/// Everything run.json records besides the results and findings; docs/run.schema.json is its
/// JSON form. Filled by the app in steps: the plan's part, the ceilings and choices, the outcome.
struct RunRecord {
  Provenance provenance;
  std::vector<RankPlacement> ranks;  ///< in rank order
  std::string input_file;
  nlohmann::json resolved_input;  ///< the input as run: YAML's tree, recorded as given
  std::vector<std::string> overrides;
  struct Experiment {
    std::string name, description;
    std::string figure;  ///< "" for none
  };
  std::vector<Experiment> experiments;  ///< in plan order
  std::string resumed_from;             ///< "" unless --resume
  CeilingTable ceilings;
  std::optional<GemmChoiceRecord> gemm_auto;  ///< only when a case asked for `kernel: auto`
  RunStatus status = RunStatus::running;
  std::string failure;            ///< why a write failed (status failed)
  std::string started, finished;  ///< UTC, ISO 8601; finished "" while running
  std::optional<int> cases_planned;
  std::string stop_reason;  ///< "" unless a signal stopped the run
  /// Other processes' and the hypervisor's share of the most loaded node while the run ran;
  /// none while running or where /proc/stat could not say.
  std::optional<MachineLoad> machine_load;
  /// Sections an experiment adds under its own key (Experiment::run_record_section: the
  /// scaling model's "model"); the experiment owns their shape, the schema states it.
  std::vector<std::pair<std::string, nlohmann::json>> sections;
};

/// `kernel: auto`'s measurements by key, as run.json's gemm_auto.entries and the choices'
/// cache file both hold them.
nlohmann::json gemm_choice_entries_json(const GemmChoiceRecord& record);
/// One tidy CSV: fixed columns plus one column per parameter name seen in any case.
std::string results_csv(const std::vector<CaseResult>& results);
/// The run record as JSON.
nlohmann::json run_json(const RunRecord& record, const std::vector<CaseResult>& results,
                        const std::vector<Finding>& findings);
/// The results a run.json recorded, keyed like resume_key(): the measured values, and the
/// case's experiment, label, device and dtype as text (its spec is the planner's to fill).
/// Throws std::runtime_error when the record is not a miniGPU run.json.
std::vector<std::pair<std::string, CaseResult>> recorded_results(const nlohmann::json& record);
/// "experiment / label / device / dtype": what identifies a case across runs of one input.
std::string resume_key(const std::string& experiment, const CaseSpec& spec);

/// The text of `dir`/run.json; nullopt when it cannot be read.
std::optional<std::string> read_run_json(const std::string& dir);
/// The passed cases (failed ones run again) of run.json `text`, by resume_key(), for a resumed
/// run of `resolved_input`: the same input and settings, wherever results go (run.output_dir
/// may differ). Throws InputError saying why the record cannot be resumed.
std::map<std::string, CaseResult> resumable_results(const std::string& text, nlohmann::json resolved_input);

}  // namespace minigpu::io
