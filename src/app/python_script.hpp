// The project's Python scripts (plot.py, plot_model.py, report.py) run one way: python3 from the
// PATH with an argument vector and no shell, so a directory name needs no quoting.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace minigpu {

/// What run_python_script returns when the script outlived its time, or a stop was asked for
/// while it ran, and it was ended.
inline constexpr int kScriptTimedOut = -2, kScriptStopped = -3;

/// `python3 script args...`'s exit code, once it has ended; -1 when python3 could not be
/// started or was ended by a signal. With `timeout_s` > 0, a script still running after that
/// many seconds is ended (SIGTERM, then SIGKILL 2 s later) and kScriptTimedOut returned: under
/// MPI the other ranks wait for the one that runs it, and a script that never returns (a hung
/// file system, a stuck font cache) would hold the whole job. With `stopped`, polled while it
/// runs, the script is ended the same way once it returns true (a Ctrl-C that reached this
/// process and not the script: a launcher's ranks sit in process groups of their own) and
/// kScriptStopped returned.
int run_python_script(const std::filesystem::path& script, const std::vector<std::string>& args,
                      double timeout_s = 0, const std::function<bool()>& stopped = {});

}  // namespace minigpu
