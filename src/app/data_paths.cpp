// Data lookup: an installed layout relative to the executable first, the source tree second.
#include "app/data_paths.hpp"

#include <system_error>

namespace minigpu {
namespace {

namespace fs = std::filesystem;

// /proc/self/exe, not argv[0]: a binary found on PATH or through a symlink has a useless argv[0].
fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

DataPaths data_paths() {
  DataPaths d;
  // MINIGPU_DATA_FROM_BIN is the install's datadir/minigpu relative to its bindir (CMake's
  // GNUInstallDirs), so `cmake --install --prefix` anywhere keeps the two in step.
  const fs::path dir = executable_dir();
  if (!dir.empty()) {
    const fs::path installed = (dir / MINIGPU_DATA_FROM_BIN).lexically_normal();
    if (is_file(installed / "schema" / "run.schema.json")) {
      d.root = installed;
      d.inputs = installed / "inputs";
      d.schema = installed / "schema" / "run.schema.json";
      d.scripts = installed / "scripts";
      d.installed = true;
      return d;
    }
  }
  const fs::path source = MINIGPU_SOURCE_DIR;
  if (is_file(source / "docs" / "run.schema.json")) {
    d.root = source;
    d.inputs = source / "inputs";
    d.schema = source / "docs" / "run.schema.json";
    d.scripts = source / "scripts";
  }
  return d;
}

std::string resolve_input(const std::string& path) {
  const fs::path given = path;
  if (path.empty() || given.is_absolute() || fs::exists(given)) return path;
  const DataPaths d = data_paths();
  if (d.root.empty()) return path;
  for (const fs::path& candidate : {d.inputs / given, d.root / given}) {
    if (is_file(candidate)) return candidate.string();
  }
  return path;
}

std::string data_paths_text() {
  const DataPaths d = data_paths();
  if (d.root.empty()) {
    return "data: not found (looked for " +
           (executable_dir() / MINIGPU_DATA_FROM_BIN).lexically_normal().string() + " and " +
           MINIGPU_SOURCE_DIR + ")";
  }
  return "data: " + d.root.string() + (d.installed ? " (installed)" : " (source tree)") +
         "\nschema: " + d.schema.string() + "\ninputs: " + d.inputs.string();
}

}  // namespace minigpu
