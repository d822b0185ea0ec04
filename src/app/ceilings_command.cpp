// Where a run's ceilings come from, and the `ceilings` command.
#include "app/ceilings_command.hpp"

#include "comm/collectives.hpp"
#include "comm/typed_exchange.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/stopwatch.hpp"
#include "engine/runner.hpp"
#include "io/console_writer.hpp"
#include "minigpu_build_info.hpp"
#include "minigpu_version.hpp"

#include <iostream>

namespace minigpu {
namespace {

// A new commit, compiler or flag set is a new build: its ceilings are measured again.
nlohmann::json build_identity() {
  return {{"version", MINIGPU_VERSION},
          {"git", MINIGPU_GIT_HASH},
          {"compiler", MINIGPU_HOST_COMPILER},
          {"flags", MINIGPU_HOST_FLAGS},
          {"type", MINIGPU_BUILD_TYPE}};
}

CeilingTable on_rank_zero(bool remeasure, const std::function<bool()>& stopped) {
  const nlohmann::json key = host_build_cache_key();
  if (!remeasure) {
    if (auto cached = load_cached_ceilings(key)) return *cached;
  }
  // Several seconds without output otherwise, on a run's first start with this build.
  std::cerr << "minigpu: measuring this machine's ceilings (once per host and build; a few seconds)"
            << std::endl;
  const std::string when = utc_now_iso8601();
  auto [table, contradictions, interrupted] = measure_ceilings(stopped);
  table.source = "measured " + when + " on " + host_info().hostname + " by rank 0 alone";
  if (interrupted) {  // the run stops before its first case; the next one measures them all
    table.source += "; interrupted by a stop signal, not cached";
    return table;
  }
  // A table that contradicts itself is used for this run, said to be doubtful, and measured
  // again next time; one measured on a loaded machine is cached with its doubt, so that every
  // run using it says so.
  if (!contradictions.empty()) {
    table.source += "; not cached: its figures contradict each other";
    return table;
  }
  std::string why;
  const std::string path = store_ceilings(table, key, when, why);
  table.source += path.empty() ? "; not cached: " + why : "; cached in " + path;
  return table;
}

}  // namespace

nlohmann::json host_build_cache_key() { return ceilings_cache_key(build_identity()); }

CeilingTable cached_ceilings() {
  auto cached = load_cached_ceilings(host_build_cache_key());
  return cached ? *cached : CeilingTable{};
}

CeilingTable obtain_ceilings(bool remeasure, const comm::Communicator& comm,
                             const std::function<bool()>& stopped) {
  CeilingTable mine;
  if (comm.rank() == 0) mine = on_rank_zero(remeasure, stopped);
  // Every rank waits for rank 0 here, asleep: the measurement runs on a quiet node (a rank
  // spinning in MPI's progress loop would take one of its cores).
  comm::barrier_without_spinning(comm);
  return comm::broadcast_value(mine, 0, comm);
}

namespace {

// `--only`: the named figures, measured now by rank 0 and never cached (a partial table in the
// cache would stand for the whole one). Every rank gets the table, so every rank refuses a name
// that is not in it, with the same one-line error.
CeilingTable measure_only(const std::vector<std::string>& only, const comm::Communicator& comm) {
  CeilingTable mine;
  if (comm.rank() == 0) {
    const std::string when = utc_now_iso8601();
    mine = measure_ceilings({}, only).table;
    mine.source = "measured " + when + " on " + host_info().hostname + " by rank 0 alone; --only: not cached";
  }
  comm::barrier_without_spinning(comm);
  mine = comm::broadcast_value(mine, 0, comm);
  for (const std::string& name : only) {
    if (!mine.find(name))
      throw InputError("ceilings --only: '" + name +
                       "' is no figure this build measures on this machine (`minigpu ceilings` lists them)");
  }
  return mine;
}

}  // namespace

int ceilings_command(bool cached, const std::vector<std::string>& only, const MpiSession& mpi) {
  const comm::Communicator world = comm::Communicator::world();
  const CeilingTable table = only.empty() ? obtain_ceilings(!cached, world) : measure_only(only, world);
  if (mpi.is_root()) io::ConsoleWriter(std::cout).ceilings(table);
  return kExitOk;
}

}  // namespace minigpu
