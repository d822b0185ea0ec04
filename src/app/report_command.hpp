// `minigpu report RUN_DIR`: one self-contained report.html to share a run (scripts/report.py).
#pragma once

#include "comm/mpi_session.hpp"

#include <string>

namespace minigpu {

/// Writes RUN_DIR/report.html on rank 0; every rank returns its exit code (README's table).
int report_command(const std::string& run_dir, const MpiSession& mpi);

}  // namespace minigpu
