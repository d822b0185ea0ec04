// The project's Python scripts (plot.py, plot_model.py, report.py) run one way: python3 from the
// PATH with an argument vector and no shell, so a directory name needs no quoting.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace minigpu {

/// `python3 script args...`'s exit code, once it has ended; -1 when python3 could not be
/// started or was ended by a signal.
int run_python_script(const std::filesystem::path& script, const std::vector<std::string>& args);

}  // namespace minigpu
