// The `minigpu` command line: parses arguments and runs the chosen subcommand.
#pragma once

#include "comm/mpi_session.hpp"
#include "core/binding.hpp"

namespace minigpu {

/// Parses argv (Kokkos flags already consumed) and runs a subcommand; returns the exit code.
int run_cli(int argc, char** argv, const MpiSession& mpi, const DeviceBinding& binding);

}  // namespace minigpu
