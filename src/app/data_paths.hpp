// Where minigpu finds what ships beside it: example inputs, the run.json schema, the scripts.
#pragma once

#include <filesystem>
#include <string>

namespace minigpu {

/// The data directory of this binary: an install's share/minigpu (found relative to the
/// executable, so a moved prefix still works), else the source tree a build-tree binary came from.
struct DataPaths {
  std::filesystem::path root;  ///< empty when neither exists
  std::filesystem::path inputs;
  std::filesystem::path schema;   ///< run.schema.json
  std::filesystem::path scripts;  ///< plot.py, plot_model.py
  bool installed = false;
};

DataPaths data_paths();

/// `path` itself when it exists; else, for a relative path, the example input of that name
/// (inputs/<path>, or <data>/<path> for "inputs/x.yaml"); else `path` unchanged, so the
/// loader's own error names what the user typed.
std::string resolve_input(const std::string& path);

/// Lines for `minigpu --version`: where the data directory, schema and inputs were found.
std::string data_paths_text();

}  // namespace minigpu
