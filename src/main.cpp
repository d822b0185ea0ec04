// minigpu: MPI first, then each rank bound to its GPU and CPUs, then Kokkos, then the command line;
// tools that need no ranks alone, without MPI or Kokkos. Errors end the whole job: input errors
// exit 2 on every rank, anything else aborts MPI.
#include "app/cli.hpp"
#include "app/job_setup.hpp"
#include "comm/gpu_aware.hpp"  // the isolation warning asks MPI
#include "comm/mpi_session.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/host_threads.hpp"
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

// Runs `body`, ending the job on its errors: input errors exit 2 on every rank (each judged the
// input alike), anything else aborts every rank.
template <class Body>
int ending_the_job_on_error(const minigpu::MpiSession& mpi, Body body) {
  try {
    return body();
  } catch (const minigpu::InputError& e) {
    if (mpi.is_root()) say(std::string("minigpu: error: ") + e.what());
    return minigpu::kExitBadInput;
  } catch (const std::exception& e) {
    say("minigpu: rank " + std::to_string(mpi.rank()) + ": error: " + e.what());
    if (mpi.size() > 1) mpi.abort(minigpu::kExitRuntimeError);
    return minigpu::kExitRuntimeError;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A tool that reads files (compare, report, model, list, --help) needs no ranks: it runs alone,
  // without MPI or Kokkos, so it starts at once and runs on a login node without a launcher.
  if (minigpu::runs_without_ranks(argc, argv)) {
    const minigpu::MpiSession alone(minigpu::MpiSession::Alone{});
    return ending_the_job_on_error(alone, [&]() -> int { return minigpu::run_cli(argc, argv, alone, {}); });
  }
  minigpu::MpiSession mpi(&argc, &argv);
  return ending_the_job_on_error(mpi, [&]() -> int {
    // The GPUs this process has when they are emulated (MINIGPU_EMULATE_GPUS, checked next).
    minigpu::GpuEmulation emulation;
    const auto& world = minigpu::comm::Communicator::world();
    const auto environment = minigpu::check_environment_everywhere(world);
    if (!environment.usable_everywhere) {
      if (!environment.problem.empty()) {
        say("minigpu: rank " + std::to_string(mpi.rank()) + ": error: " + environment.problem);
      }
      return minigpu::kExitBadInput;
    }
    const minigpu::DeviceBinding binding = minigpu::bind_rank(world);
    minigpu::KokkosSession kokkos(
        argc, argv, minigpu::gpus_are_emulated() ? -1 : binding.device_id,
        minigpu::default_host_threads(static_cast<int>(binding.cpus.size()), binding.cpu_sharing_ranks));
    auto warnings = minigpu::binding_warnings(binding);
    // Emulated GPUs are host memory: no IPC to lose.
    const std::string isolated = minigpu::isolation_warning(
        binding, !minigpu::gpus_are_emulated() && minigpu::comm::mpi_accepts_device_memory());
    if (!isolated.empty()) warnings.push_back(isolated);
    for (const auto& warning : warnings) {
      if (binding.local_rank == 0) say("minigpu: warning: " + minigpu::processor_name() + ": " + warning);
    }
    if (mpi.is_root() && minigpu::gpus_are_emulated()) {
      say("minigpu: note: " + std::to_string(minigpu::num_gpus()) +
          " emulated GPU(s) from MINIGPU_EMULATE_GPUS; their memory is host memory");
    }
    return minigpu::run_cli(argc, argv, mpi, binding);
  });
}
