// `minigpu list`: the registered experiments, or every input key.
#pragma once

#include "comm/mpi_session.hpp"

namespace minigpu {

/// Every registered experiment with its one-line description; with `keys`, every input key
/// as JSON (declared_input_keys()); with `json`, the registry (question, figure, findings).
int list_command(bool keys, bool json, const MpiSession& mpi);

}  // namespace minigpu
