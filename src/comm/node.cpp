// MPI_Comm_split_type groups the ranks that share memory, i.e. one node.
#include "comm/node.hpp"

namespace minigpu::comm {

NodeLocal node_local(MPI_Comm comm) {
  MPI_Comm shared = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  NodeLocal n;
  MPI_Comm_rank(shared, &n.rank);
  MPI_Comm_size(shared, &n.size);
  MPI_Comm_free(&shared);
  return n;
}

}  // namespace minigpu::comm
