// A run's directory: created before the first case, rewritten as cases finish, renamed into
// place only when complete, so nobody reads a half-written run as a finished one.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace minigpu::io {

/// A run's directory while it is written: a temporary of its own, created (mkdtemp) before
/// the first case, rewritten as each case finishes (so a killed run keeps its finished cases
/// there), and renamed at the end to a name that says how the run ended:
///   run_name-stamp[-k]                      complete
///   run_name-stamp.interrupted[-k]          stopped by a signal; `--resume` completes it
///   run_name-stamp.failed-XXXXXX            a write failed
///   run_name-stamp.partial-XXXXXX           still running, or killed outright
/// Its permissions follow the umask, as files do (mkdtemp alone gives 0700: colleagues on a
/// shared file system could not read the results). Errors carry the OS's reason.
class RunDirectory {
 public:
  /// Creates `output_dir` if needed and output_dir/run_name-stamp.partial-XXXXXX; throws
  /// std::system_error with the OS's reason when it cannot.
  RunDirectory(const std::string& output_dir, const std::string& run_name, const std::string& stamp);
  /// An existing run directory of any of the names above, taken up again (`--resume`): it is
  /// renamed run_name-stamp.partial-XXXXXX while written, and finish() gives it its complete
  /// name, so the run completes where it started. Throws std::system_error.
  static RunDirectory reopen(const std::string& path);
  /// Replaces results.csv and run.json, each through a temporary file and a rename.
  void write(const std::string& csv, const nlohmann::json& record);
  /// Renames the directory to output_dir/run_name-stamp[-k] (never over an existing run) and
  /// returns that path.
  std::string finish();
  /// Renames the directory to output_dir/run_name-stamp.interrupted[-k] and returns that path;
  /// later writes go there, and finish() still renames it complete.
  std::string mark_interrupted();
  /// Renames the directory to output_dir/run_name-stamp.failed-XXXXXX, keeping what was
  /// written, and returns its path (the old one if the rename itself fails).
  std::string mark_failed();
  /// Removes the temporary directory: the only directory a run ever removes.
  void discard();
  const std::string& path() const { return partial_; }

 private:
  RunDirectory() = default;
  /// Renames the directory to base_ + suffix, then base_ + suffix + "-k", whichever is free.
  std::string claim(const std::string& suffix);
  std::string base_, partial_;
  std::string token_;  ///< the six random characters of its .partial- name, reused by .failed-
};

/// Whether `path` is a run directory with nothing in it yet: named ".partial-XXXXXX" and without
/// run.json (a run before its first case, or one killed outright before it). A glob over a
/// results folder can match one while a run starts.
bool unwritten_run_directory(const std::string& path);

/// The name's part before the end a run directory's state adds (".partial-XXXXXX",
/// ".interrupted[-k]", ".failed-XXXXXX"): the run's own name and stamp.
std::string run_directory_base(const std::string& path);

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
