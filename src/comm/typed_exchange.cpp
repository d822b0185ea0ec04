#include "comm/typed_exchange.hpp"

#include "comm/mpi_types.hpp"
#include "core/progress.hpp"

#include <mpi.h>

namespace minigpu::comm {

std::vector<char> broadcast_bytes(const std::vector<char>& mine, int root, const Communicator& comm) {
  std::int64_t length = comm.rank() == root ? static_cast<std::int64_t>(mine.size()) : 0;
  const progress::Wait waiting("MPI_Bcast");
  MPI_Bcast(&length, 1, MPI_INT64_T, root, comm.raw());
  std::vector<char> bytes = comm.rank() == root ? mine : std::vector<char>(static_cast<std::size_t>(length));
  MPI_Bcast(bytes.data(), int_count(length), MPI_CHAR, root, comm.raw());
  return bytes;
}

std::vector<std::vector<char>> allgather_bytes(const std::vector<char>& mine, const Communicator& comm) {
  const int ranks = comm.size();
  int length = int_count(static_cast<std::int64_t>(mine.size()));
  std::vector<int> lengths(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks), 0);
  const progress::Wait waiting("MPI_Allgatherv");
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm.raw());
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::vector<char> all(static_cast<std::size_t>(offsets[ranks - 1] + lengths[ranks - 1]));
  MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                 comm.raw());
  std::vector<std::vector<char>> out;
  out.reserve(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    out.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + lengths[r]);
  return out;
}

}  // namespace minigpu::comm
