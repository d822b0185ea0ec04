// minigpu: MPI first, then Kokkos, then the command line; errors end the whole job cleanly.
#include "app/cli.hpp"
#include "app/exit_codes.hpp"
#include "comm/mpi_session.hpp"
#include "core/device.hpp"
#include "core/kokkos_session.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  minigpu::MpiSession mpi(&argc, &argv);
  try {
    minigpu::KokkosSession kokkos(argc, argv);
    if (mpi.is_root() && minigpu::gpus_are_emulated()) {
      std::cerr << "minigpu: note: " << minigpu::num_gpus()
                << " emulated GPU(s) from MINIGPU_EMULATE_GPUS; their memory is host memory\n";
    }
    return minigpu::run_cli(argc, argv, mpi);
  } catch (const minigpu::InputError& e) {
    // Input is read identically on every rank, so every rank fails the same way: no abort.
    if (mpi.is_root()) std::cerr << "minigpu: error: " << e.what() << '\n';
    return minigpu::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "minigpu: rank " << mpi.rank() << ": error: " << e.what() << '\n';
    if (mpi.size() > 1) mpi.abort(minigpu::kExitRuntimeError);
    return minigpu::kExitRuntimeError;
  }
}
