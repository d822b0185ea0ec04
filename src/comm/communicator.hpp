// An MPI communicator that frees itself: the world, or a split of another communicator.
// Copies share one handle; the last copy frees it (never the world, never after MPI ends).
#pragma once

#include <mpi.h>

#include <memory>

namespace minigpu::comm {

/// Passed to split() by ranks that should get no communicator.
inline constexpr int kNoColour = -1;
/// A rank that does not exist: a send to or receive from it does nothing (MPI_PROC_NULL).
inline constexpr int kNoRank = MPI_PROC_NULL;

class Communicator {
 public:
  /// A null communicator (a rank outside every split).
  Communicator() = default;
  /// MPI_COMM_WORLD (usable once MPI is initialised).
  static Communicator world();

  /// Collective: ranks passing the same colour share a new communicator, ordered by key;
  /// ranks passing kNoColour get a null one.
  Communicator split(int colour, int key) const;
  /// Collective: the ranks on this rank's node (they share memory).
  Communicator split_node() const;

  bool is_null() const { return raw() == MPI_COMM_NULL; }
  /// This rank's index and the number of ranks; throws std::logic_error on a null communicator.
  int rank() const;
  int size() const;
  /// The MPI handle, for the comm layer's own calls.
  MPI_Comm raw() const { return handle_ ? *handle_ : MPI_COMM_NULL; }

 private:
  explicit Communicator(std::shared_ptr<MPI_Comm> handle) : handle_(std::move(handle)) {}
  static Communicator adopt(MPI_Comm owned);

  std::shared_ptr<MPI_Comm> handle_;
};

}  // namespace minigpu::comm
