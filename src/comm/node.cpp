// The ranks that share memory are the ranks of one node.
#include "comm/node.hpp"

namespace minigpu::comm {

NodeLocal node_local(const Communicator& comm) {
  const Communicator node = comm.split_node();
  return {node.rank(), node.size()};
}

}  // namespace minigpu::comm
