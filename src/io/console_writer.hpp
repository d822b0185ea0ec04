// The readable tables rank 0 prints as cases finish. Progress never lands inside a table: on
// a terminal it is one status line, redrawn under the rows and erased before the next; into a
// file or pipe it is a plain line between experiments.
#pragma once

#include "io/ceiling_table.hpp"
#include "io/provenance.hpp"
#include "io/results.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace minigpu::io {

class ConsoleWriter {
 public:
  /// `live_status`: `os` is a terminal, where a status line can be redrawn in place.
  explicit ConsoleWriter(std::ostream& os, bool live_status = false) : os_(os), live_status_(live_status) {}
  /// The machine's ceilings and where they came from.
  void ceilings(const CeilingTable& table);
  /// CPU, vector width, compiler flags, host BLAS and threads: what figures depend on.
  void host_build(const Provenance& provenance);
  /// One line per rank: host, local rank, device id and name.
  void rank_map(const std::vector<RankPlacement>& ranks);
  /// --dry-run: the resolved input (overrides applied), then every case once with its device,
  /// dtype and memory per rank, as `ranks` ranks would run them.
  /// `estimate` (a line on run time) and `warnings` (e.g. a GPU input that would run on the
  /// CPU) follow the cases.
  void plan(const nlohmann::json& resolved_input,
            const std::vector<std::pair<std::string, std::vector<CaseSpec>>>& experiments, int ranks,
            const std::string& estimate, const std::vector<std::string>& warnings);
  /// Lines that must be seen before the tables (a GPU input running on the CPU).
  void warnings(const std::vector<std::string>& warnings);
  /// Lines on how the tables will come (an experiment's rows all at the end of its rounds).
  void notes(const std::vector<std::string>& notes);
  void case_finished(const CaseResult& r, int index, int total, double elapsed_s);
  void findings(const std::vector<Finding>& findings);
  /// The closing count; a run stopped by a signal (`interrupted_by` names it) says so first,
  /// with the cases it finished out of those `planned`.
  void summary(const std::vector<CaseResult>& results, const std::string& results_dir, int planned = 0,
               const std::string& interrupted_by = "");

 private:
  void erase_status();

  std::ostream& os_;
  bool live_status_ = false;
  bool status_shown_ = false;
  std::string current_experiment_;
  std::string progress_;  ///< the latest "case k of N" line
  int resumed_rows_ = 0;  ///< rows carried over from the run a --resume completes
};

}  // namespace minigpu::io
