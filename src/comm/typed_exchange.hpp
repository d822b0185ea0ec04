// Values of C++ types between ranks: a struct is written to bytes (core/wire.hpp), the bytes
// move by MPI, and each rank reads the struct back. What the ranks agree on (the ceilings, the
// GEMM choices, the rank map) travels so, not as text to be parsed.
#pragma once

#include "comm/communicator.hpp"
#include "core/wire.hpp"

#include <vector>

namespace minigpu::comm {

/// Rank `root`'s bytes on every rank of `comm` (the others' `mine` is not read).
std::vector<char> broadcast_bytes(const std::vector<char>& mine, int root, const Communicator& comm);
/// Every rank's bytes (lengths may differ), in rank order, on every rank.
std::vector<std::vector<char>> allgather_bytes(const std::vector<char>& mine, const Communicator& comm);

/// Rank `root`'s `value` on every rank (the others' is not read).
template <class T>
T broadcast_value(const T& value, int root, const Communicator& comm) {
  return wire::through(value, comm.rank() == root,
                       [&](const std::vector<char>& bytes) { return broadcast_bytes(bytes, root, comm); });
}

/// Every rank's `value`, in rank order, on every rank.
template <class T>
std::vector<T> allgather_values(const T& value, const Communicator& comm) {
  wire::Writer out;
  out.put(value);
  std::vector<T> all;
  for (const std::vector<char>& bytes : allgather_bytes(out.bytes(), comm)) {
    wire::Reader in(bytes);
    in.get(all.emplace_back());
    in.expect_end();
  }
  return all;
}

}  // namespace minigpu::comm
