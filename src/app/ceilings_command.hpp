// The machine's ceilings for a run or for `minigpu ceilings`: cached per host and build,
// measured by rank 0 alone (the other ranks wait) and shared with every rank.
#pragma once

#include "ceilings/ceilings.hpp"
#include "comm/communicator.hpp"
#include "comm/mpi_session.hpp"

#include <functional>
#include <string>
#include <vector>

namespace minigpu {

/// The cached table when one matches this host and build (unless `remeasure`), else a new
/// measurement, stored in the cache. Collective; every rank gets rank 0's table. `stopped`
/// (rank 0's poll of a stop signal) ends a measurement early: a partial table, not cached.
CeilingTable obtain_ceilings(bool remeasure, const comm::Communicator& comm,
                             const std::function<bool()>& stopped = {});

/// The cached table for this host and build, or an empty one: never measures (--dry-run).
CeilingTable cached_ceilings();

/// This host and build's cache key: the ceilings' and `kernel: auto`'s measurements share it.
nlohmann::json host_build_cache_key();

/// `minigpu ceilings [--cached | --only NAME,...]`: measures (or, with `cached`, reuses) and prints
/// the table; with `only`, measures those figures alone and prints them, leaving the cache as it is.
int ceilings_command(bool cached, const std::vector<std::string>& only, const MpiSession& mpi);

}  // namespace minigpu
