// Node-local rank from MPI itself: launcher variables lie (under mpirun inside a Slurm job
// every rank sees SLURM_LOCALID=0), MPI_COMM_TYPE_SHARED does not.
#pragma once

#include "comm/communicator.hpp"

#include <vector>

namespace minigpu::comm {

struct NodeLocal {
  int rank = 0;
  int size = 1;
};

/// This rank's index and the rank count among the ranks of `comm` sharing its node.
NodeLocal node_local(const Communicator& comm);

/// Collective: the node of every rank of `comm`, in rank order, nodes numbered 0, 1, ... in the
/// order of their lowest rank (the same vector on every rank).
std::vector<int> node_of_ranks(const Communicator& comm);

}  // namespace minigpu::comm
