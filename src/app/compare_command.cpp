// `minigpu compare`: reads both sides, matches them, and hands the result to the writers.
#include "app/compare_command.hpp"

#include "compare/compare_writers.hpp"
#include "compare/comparison.hpp"
#include "compare/run_table.hpp"
#include "core/errors.hpp"

#include <fstream>
#include <iostream>

namespace minigpu {
namespace {

void write_to(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return;
  }
  std::ofstream out(path);
  out << text;
  if (!out || (out.close(), !out)) throw InputError(path + ": cannot write the comparison there");
}

}  // namespace

int compare_command(const CompareOptions& options, const MpiSession& mpi) {
  if (options.candidate.empty() == options.reference.empty())
    throw InputError(
        "compare: give two runs (compare A B) or one run and a reference (compare A --reference FILE)");
  if (options.json == "-" && options.csv == "-")
    throw InputError("compare: --json - and --csv - would both write to standard output: give one a file");
  // With --reference the reference is the baseline: ratios say how the run does against it.
  const std::string baseline_path = options.reference.empty() ? options.baseline : options.reference;
  const std::string candidate_path = options.reference.empty() ? options.candidate : options.baseline;
  const auto baseline = compare::load_run_table(baseline_path);
  const auto candidate = compare::load_run_table(candidate_path);
  const auto comparison = compare::compare_tables(baseline, candidate);
  // A side without a case is a run stopped before its first: said so, not as a mismatch.
  for (const auto* side : {&baseline, &candidate}) {
    if (side->cases.empty())
      throw InputError("compare: " + side->path + " has no case to compare" +
                       (side->status.empty() ? ""
                                             : " (status '" + side->status + "', 0 of " +
                                                   std::to_string(side->cases_planned) + " cases finished)"));
  }
  if (comparison.cases.empty())
    throw InputError("compare: " + baseline_path + " and " + candidate_path +
                     " have no case in common (same experiment, case, device and dtype)");
  if (mpi.is_root()) {
    if (!options.json.empty())
      write_to(options.json, compare::comparison_json(comparison, options.fail_below).dump(2) + "\n");
    if (!options.csv.empty()) write_to(options.csv, compare::comparison_csv(comparison));
    if (options.json != "-" && options.csv != "-")
      compare::write_comparison(std::cout, comparison, options.fail_below);
    std::cout.flush();
  }
  if (options.fail_below && !compare::below_threshold(comparison, *options.fail_below).empty()) return 1;
  return kExitOk;
}

}  // namespace minigpu
