// The environment check and the rank-to-GPU binding that main runs before Kokkos.
#include "app/job_setup.hpp"

#include "comm/collectives.hpp"
#include "comm/node.hpp"
#include "core/backend.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/fault_injection.hpp"

namespace minigpu {

EnvironmentCheck check_environment_everywhere(const comm::Communicator& world) {
  EnvironmentCheck check;
  try {
    gpus_are_emulated();
    injected_delay_s("");  // a malformed test hook is a usage error before anything runs
  } catch (const InputError& e) {
    check.problem = e.what();
  }
  check.usable_everywhere = comm::all_ranks(check.problem.empty(), world);
  return check;
}

const DeviceBinding& bind_rank_to_gpu(const comm::Communicator& world) {
  const auto node = comm::node_local(world);
  const int gpus = gpus_are_emulated() ? emulated_gpu_count() : visible_gpu_count();
  set_rank_binding(plan_binding(node.rank, node.size, gpus));
  return rank_binding();
}

}  // namespace minigpu
