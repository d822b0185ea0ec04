// A run's directory: created before the first case, rewritten as cases finish, renamed into
// place only when complete, so nobody reads a half-written run as a finished one.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace minigpu::io {

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
