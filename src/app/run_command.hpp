// `minigpu run INPUT`: validate everything collectively, run, verify, write the record.
#pragma once

#include "comm/mpi_session.hpp"
#include "core/binding.hpp"

#include <string>
#include <vector>

namespace minigpu {

struct RunOptions {
  std::string input;
  std::string output_dir;  ///< empty: the input's run.output_dir
  std::vector<std::string> only;
  std::vector<std::string> overrides;  ///< --set PATH=VALUE, and the --repetitions/--warmups shortcuts
  bool dry_run = false;
  bool plot = false;          ///< run scripts/plot.py on the results directory when done
  std::string resume;         ///< a run directory of this input: its finished cases are not run again
  double case_timeout_s = 0;  ///< > 0: every case's watchdog budget (--case-timeout)
  /// How to ask for this run again, less any --resume: what an interrupted run prints, with
  /// --resume and its directory appended, for the user to copy.
  std::vector<std::string> command;
};

/// Returns kExitOk when every case verified, kExitVerifyFailed otherwise.
int run_command(const RunOptions& options, const MpiSession& mpi, const DeviceBinding& binding);

}  // namespace minigpu
