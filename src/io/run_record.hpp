// The files of a run: results.csv (tidy rows) and run.json (provenance + every result),
// written into a temporary directory that is renamed into place only when complete.
#pragma once

#include "io/results.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace minigpu::io {

/// Everything run.json records besides the results.
struct Provenance {
  nlohmann::json fields = nlohmann::json::object();  ///< version, Kokkos, host, devices, MPI map, input
};

/// One tidy CSV: fixed columns plus one column per parameter name seen in any case.
std::string results_csv(const std::vector<CaseResult>& results);
/// The run record as JSON.
nlohmann::json run_json(const Provenance& provenance, const std::vector<CaseResult>& results,
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

/// A run's directory while it is written: a temporary of its own, created (mkdtemp) before
/// the first case, rewritten as each case finishes (so a killed run keeps its finished cases
/// there), and renamed into place at the end. Errors carry the OS's reason.
class RunDirectory {
 public:
  /// Creates `output_dir` if needed and output_dir/run_name-stamp.partial-XXXXXX; throws
  /// std::system_error with the OS's reason when it cannot.
  RunDirectory(const std::string& output_dir, const std::string& run_name, const std::string& stamp);
  /// Replaces results.csv and run.json, each through a temporary file and a rename.
  void write(const std::string& csv, const nlohmann::json& record);
  /// Renames the directory to output_dir/run_name-stamp[-k] (never over an existing run) and
  /// returns that path.
  std::string finish();
  /// Renames the directory to output_dir/run_name-stamp.failed-XXXXXX, keeping what was
  /// written, and returns its path (the old one if the rename itself fails).
  std::string mark_failed();
  /// Removes the temporary directory: the only directory a run ever removes.
  void discard();
  const std::string& path() const { return partial_; }

 private:
  std::string base_, partial_;
};

/// Creates a run directory in `output_dir` and removes it again, with any parents it had to
/// create (only those, and only while empty): proves a run could write there, for --dry-run.
/// Throws std::system_error as RunDirectory does.
void probe_output_dir(const std::string& output_dir);

/// Writes both files under `output_dir`/`run_name`-`stamp`[-k] and returns the final path.
/// Never overwrites an existing run directory; leaves nothing behind on failure.
std::string write_run_directory(const std::string& output_dir, const std::string& run_name,
                                const std::string& stamp, const std::string& csv,
                                const nlohmann::json& record);

}  // namespace minigpu::io
