// What `minigpu compare` reads from a run or a reference: each case's median time with its 95 %
// interval, each finding, and a line saying where the figures come from.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace minigpu::compare {

/// One case of a run: the key that matches it across runs, and its median seconds.
struct CaseTime {
  std::string experiment, label, device, dtype;
  std::map<std::string, std::string> params{};  ///< the tidy columns, to say when two runs differ
  double median_s = 0;
  /// The median's 95 % interval in seconds; empty where the source does not record one (a
  /// reference built from published rates).
  std::optional<std::pair<double, double>> ci95{};
  int repetitions = 0;  ///< 0 where unknown
  bool verified = true;
  /// "experiment / case / device / dtype": the same spelling as a run's resume key.
  std::string key() const { return experiment + " / " + label + " / " + device + " / " + dtype; }
};

/// One finding: a derived figure (a ratio, an efficiency, a peak rate).
struct FindingValue {
  std::string experiment, name, unit;
  std::optional<double> value{};  ///< empty when the run could not say (its note says why)
  std::optional<std::pair<double, double>> ci95{};
  bool reliable = true;
  std::string unreliable_because{};  ///< the run's reason, where it flagged the finding
  std::string note{};                ///< the run's note: for one without a value, why not
  std::string key() const { return experiment + "." + name; }
};

/// A run directory, a run.json or a reference file, read for comparison.
struct RunTable {
  std::string path;         ///< as given on the command line
  std::string description;  ///< one line: what, where, when (hardware and software)
  bool is_reference = false;
  int ranks = 0;    ///< MPI ranks (mpi.size), 0 where not recorded
  std::string cpu;  ///< host.cpu, "" where not recorded
  /// What else sets a case's speed, as recorded ("Kokkos" -> "4.6.1 OpenMP", "threads a rank" ->
  /// "2", "OpenBLAS kernels" -> "Haswell"); a key is absent where not recorded.
  std::map<std::string, std::string> setup{};
  /// A run's status ("complete", "interrupted", "running" for one killed outright, "failed")
  /// and the cases it planned; "" and 0 for a reference or where not recorded.
  std::string status;
  int cases_planned = 0;
  std::vector<CaseTime> cases;
  std::vector<FindingValue> findings;
};

/// Reads `path`: a run directory (its run.json), a run.json, or a reference file
/// (inputs/references/README.md). Throws InputError naming the file and the entry and key at
/// fault, e.g. "ref.json: results[3]: key 'seconds.median' must be a positive number".
RunTable load_run_table(const std::string& path);

}  // namespace minigpu::compare
