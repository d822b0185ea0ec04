// minigpu: MPI first, then each rank bound to its GPU, then Kokkos, then the command line.
// Errors end the whole job: input errors exit 2 on every rank, anything else aborts MPI.
#include "app/cli.hpp"
#include "comm/collectives.hpp"
#include "comm/mpi_session.hpp"
#include "comm/node.hpp"
#include "core/backend.hpp"
#include "core/binding.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/fault_injection.hpp"
#include "core/kokkos_session.hpp"

#include <cstdio>
#include <exception>
#include <string>

namespace {

// One write per message: ranks share the terminal, and a line written in pieces interleaves.
void say(const std::string& line) {
  std::fputs((line + "\n").c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace

int main(int argc, char** argv) {
  minigpu::MpiSession mpi(&argc, &argv);
  try {
    // The environment is each rank's own (an MPMD launch may differ), so ranks decide together
    // whether it is usable: a bad value on one rank ends every rank with exit 2, none waits.
    const auto& world = minigpu::comm::Communicator::world();
    std::string environment_problem;
    try {
      minigpu::gpus_are_emulated();
      minigpu::injected_delay_s("");  // a malformed test hook is a usage error before anything runs
    } catch (const minigpu::InputError& e) {
      environment_problem = e.what();
    }
    if (!minigpu::comm::all_ranks(environment_problem.empty(), world)) {
      if (!environment_problem.empty()) {
        say("minigpu: rank " + std::to_string(mpi.rank()) + ": error: " + environment_problem);
      }
      return minigpu::kExitBadInput;
    }
    // Emulated GPUs are bound like real ones: each rank owns one.
    const auto node = minigpu::comm::node_local(world);
    const int gpus =
        minigpu::gpus_are_emulated() ? minigpu::emulated_gpu_count() : minigpu::visible_gpu_count();
    const auto binding = minigpu::plan_binding(node.rank, node.size, gpus);
    minigpu::set_rank_binding(binding);
    for (const auto& warning : binding.warnings) {
      if (node.rank == 0) say("minigpu: warning: " + minigpu::processor_name() + ": " + warning);
    }
    minigpu::KokkosSession kokkos(argc, argv, minigpu::gpus_are_emulated() ? -1 : binding.device_id);
    if (mpi.is_root() && minigpu::gpus_are_emulated()) {
      say("minigpu: note: " + std::to_string(minigpu::num_gpus()) +
          " emulated GPU(s) from MINIGPU_EMULATE_GPUS; their memory is host memory");
    }
    return minigpu::run_cli(argc, argv, mpi);
  } catch (const minigpu::InputError& e) {
    // Input is judged identically on every rank, so every rank fails the same way: no abort.
    if (mpi.is_root()) say(std::string("minigpu: error: ") + e.what());
    return minigpu::kExitBadInput;
  } catch (const std::exception& e) {
    say("minigpu: rank " + std::to_string(mpi.rank()) + ": error: " + e.what());
    if (mpi.size() > 1) mpi.abort(minigpu::kExitRuntimeError);
    return minigpu::kExitRuntimeError;
  }
}
