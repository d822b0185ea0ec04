// The page is drawn by scripts/report.py, beside these sources as scripts/plot.py is for
// `run --plot`: the figures are matplotlib's, and one drawing of them serves both.
#include "app/report_command.hpp"

#include "app/data_paths.hpp"
#include "app/python_script.hpp"

#include "comm/collectives.hpp"
#include "comm/communicator.hpp"
#include "config/config_node.hpp"
#include "core/errors.hpp"
#include "io/run_directory.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

namespace minigpu {
namespace {

constexpr const char* kUnwritten = "a run not yet past its first case, or killed before it (no run.json yet)";

int run_script(const std::filesystem::path& script, const std::string& run_dir) {
  const int code = run_python_script(script, {run_dir});
  if (code < 0) std::cerr << "minigpu: error: python3 did not run " << script.string() << " to its end\n";
  return code == 0 ? kExitOk : code == kExitBadInput ? kExitBadInput : kExitRuntimeError;
}

// What the page is drawn from must be there: a run.json that parses, with its lists.
void check_record(const std::string& run_dir) {
  const std::string file = (std::filesystem::path(run_dir) / "run.json").string();
  std::ifstream in(file);
  if (!std::filesystem::is_regular_file(file) || !in)
    throw InputError("report: '" + shown(run_dir) + "': no run.json (expected a minigpu run directory)");
  nlohmann::json record;
  try {
    in >> record;
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file + ": not valid JSON: " + e.what());
  }
  for (const char* key : {"experiments", "results", "findings"}) {
    if (!record.is_object() || !record.contains(key) || !record[key].is_array())
      throw InputError(file + ": key '" + key + "': missing or not a list (written by an older minigpu?)");
  }
}

}  // namespace

int report_command(const std::vector<std::string>& given, const MpiSession& mpi) {
  // `results/quickstart-*/` also matches a run still starting (or killed outright before its
  // first case): skipped with a note, unless it is all there is.
  std::vector<std::string> run_dirs;
  for (const auto& dir : given) {
    if (!io::unwritten_run_directory(dir)) {
      run_dirs.push_back(dir);
    } else if (given.size() == 1) {
      throw InputError("report: '" + shown(dir) + "': " + kUnwritten);
    } else if (mpi.is_root()) {
      std::cerr << "minigpu: report: skipped '" << shown(dir) << "': " << kUnwritten << '\n';
    }
  }
  if (run_dirs.empty()) throw InputError("report: every directory given is " + std::string(kUnwritten));
  // Every record first, on every rank alike, so that a bad one ends every rank with exit 2
  // before any page is written.
  for (const auto& run_dir : run_dirs) check_record(run_dir);
  int code = kExitOk;
  if (mpi.is_root()) {
    std::cout.flush();
    for (const auto& run_dir : run_dirs) {
      const int one = run_script(data_paths().scripts / "report.py", run_dir);
      // A bad run.json is the script's one-line error already; anything else is said here.
      if (one == kExitRuntimeError)
        std::cerr << "minigpu: error: scripts/report.py failed on " << run_dir << '\n';
      code = std::max(code, one);
    }
  }
  if (!mpi.initialized()) return code;  // alone: nobody to agree with
  return static_cast<int>(comm::max_over_ranks(static_cast<double>(code), comm::Communicator::world()));
}

}  // namespace minigpu
