// The `minigpu` command line: parses arguments and runs the chosen subcommand.
#pragma once

#include "comm/mpi_session.hpp"
#include "core/binding.hpp"

namespace minigpu {

/// Parses argv (Kokkos flags already consumed) and runs a subcommand; returns the exit code.
int run_cli(int argc, char** argv, const MpiSession& mpi, const DeviceBinding& binding);

/// True for a command line that needs no ranks, devices or Kokkos: compare, report, model,
/// list (but list --keys, which configures every experiment), and --help or --version without a
/// command, when no launcher started the process and no --kokkos-* option is given. main runs
/// these alone (MpiSession::Alone): no MPI_Init, so they start at once and run on a login node
/// whose MPI cannot start a job.
bool runs_without_ranks(int argc, char** argv);

}  // namespace minigpu
