// `minigpu list`, from the registry and the readers' declared keys.
#include "app/list_command.hpp"

#include "core/errors.hpp"
#include "engine/plan.hpp"
#include "engine/registry.hpp"

#include <cstdio>

namespace minigpu {

int list_command(bool keys, bool json, const MpiSession& mpi) {
  if (keys) {
    const RunContext ctx = RunContext::on(comm::Communicator::world());
    const nlohmann::json declared = declared_input_keys(ctx);
    if (mpi.is_root()) std::printf("%s\n", declared.dump(2).c_str());
    return kExitOk;
  }
  if (json) {
    if (mpi.is_root()) std::printf("%s\n", ExperimentRegistry::describe_all().dump(2).c_str());
    return kExitOk;
  }
  if (mpi.is_root()) {
    for (const auto& info : ExperimentRegistry::all()) {
      std::printf("  %-24s %s\n", info.name.c_str(), info.description.c_str());
      if (!info.figure.empty()) std::printf("  %-24s figure: %s\n", "", info.figure.c_str());
    }
  }
  return kExitOk;
}

}  // namespace minigpu
