// The `minigpu` command line: parses arguments and runs the chosen subcommand.
#pragma once

#include "comm/mpi_session.hpp"

namespace minigpu {

/// Parses argv (Kokkos flags already consumed) and runs a subcommand; returns the exit code.
int run_cli(int argc, char** argv, const MpiSession& mpi);

}  // namespace minigpu
