// `minigpu report RUN_DIR`: one self-contained report.html to share a run (scripts/report.py).
#pragma once

#include "comm/mpi_session.hpp"

#include <string>
#include <vector>

namespace minigpu {

/// Writes report.html into each of `run_dirs` on rank 0 (a glob such as results/quickstart-*/
/// matches every run of a name); every rank returns its exit code (README's table).
int report_command(const std::vector<std::string>& run_dirs, const MpiSession& mpi);

}  // namespace minigpu
