// minigpu: MPI first, then each rank bound to its GPU, then Kokkos, then the command line.
// Errors end the whole job: input errors exit 2 on every rank, anything else aborts MPI.
#include "app/cli.hpp"
#include "app/exit_codes.hpp"
#include "comm/mpi_session.hpp"
#include "comm/node.hpp"
#include "core/backend.hpp"
#include "core/binding.hpp"
#include "core/device.hpp"
#include "core/kokkos_session.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  minigpu::MpiSession mpi(&argc, &argv);
  try {
    // Emulated GPUs are bound like real ones: each rank owns one.
    const auto node = minigpu::comm::node_local(MPI_COMM_WORLD);
    const int gpus = minigpu::gpus_are_emulated() ? minigpu::emulated_gpu_count() : minigpu::visible_gpu_count();
    const auto binding = minigpu::plan_binding(node.rank, node.size, gpus);
    minigpu::set_rank_binding(binding);
    for (const auto& warning : binding.warnings) {
      if (node.rank == 0) std::cerr << "minigpu: warning: " << minigpu::processor_name() << ": " << warning << '\n';
    }
    minigpu::KokkosSession kokkos(argc, argv, minigpu::gpus_are_emulated() ? -1 : binding.device_id);
    if (mpi.is_root() && minigpu::gpus_are_emulated()) {
      std::cerr << "minigpu: note: " << minigpu::num_gpus()
                << " emulated GPU(s) from MINIGPU_EMULATE_GPUS; their memory is host memory\n";
    }
    return minigpu::run_cli(argc, argv, mpi);
  } catch (const minigpu::InputError& e) {
    // Input is judged identically on every rank, so every rank fails the same way: no abort.
    if (mpi.is_root()) std::cerr << "minigpu: error: " << e.what() << '\n';
    return minigpu::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "minigpu: rank " << mpi.rank() << ": error: " << e.what() << '\n';
    if (mpi.size() > 1) mpi.abort(minigpu::kExitRuntimeError);
    return minigpu::kExitRuntimeError;
  }
}
