// The ranks that share memory are the ranks of one node.
#include "comm/node.hpp"

#include <map>

namespace minigpu::comm {

NodeLocal node_local(const Communicator& comm) {
  const Communicator node = comm.split_node();
  return {node.rank(), node.size()};
}

std::vector<int> node_of_ranks(const Communicator& comm) {
  // A node is named by its lowest rank in `comm`: the same on all of its ranks.
  const Communicator node = comm.split_node();
  int me = comm.rank(), lowest = 0;
  MPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, node.raw());
  std::vector<int> lowest_of(static_cast<std::size_t>(comm.size()));
  MPI_Allgather(&lowest, 1, MPI_INT, lowest_of.data(), 1, MPI_INT, comm.raw());
  std::map<int, int> index;  // lowest rank -> node number, numbered in rank order
  for (int l : lowest_of) index.emplace(l, static_cast<int>(index.size()));
  std::vector<int> out;
  for (int l : lowest_of) out.push_back(index.at(l));
  return out;
}

}  // namespace minigpu::comm
