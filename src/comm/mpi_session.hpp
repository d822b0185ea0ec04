// MPI lifetime and the world communicator's facts: first in, last out (before/after Kokkos).
#pragma once

#include <mpi.h>

#include <string>

namespace minigpu {

/// RAII MPI_Init/MPI_Finalize. Build it before any Kokkos object and let it die last.
class MpiSession {
 public:
  /// A process that needs no ranks (a tool reading files: compare, report, --help): rank 0 of
  /// 1, and MPI never initialised, so it starts at once and runs where no launcher is.
  struct Alone {};

  MpiSession(int* argc, char*** argv);
  explicit MpiSession(Alone) : initialized_(false) {}
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  /// False for an Alone session: no collective may be called.
  bool initialized() const { return initialized_; }
  /// Ends every rank of the job now: one rank's failure must never leave others hanging.
  [[noreturn]] void abort(int exit_code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  bool initialized_ = true;
};

/// Whether the MPI library lets the main thread call it while other threads run (a level of
/// MPI_THREAD_FUNNELED or more; MpiSession does not ask for it, see there); false before MPI_Init.
bool mpi_funneled();

/// Name of the node this rank runs on (MPI_Get_processor_name).
std::string processor_name();

/// The MPI library's own version string (MPI_Get_library_version), its first line with runs of
/// white space made one: "Open MPI v4.1.4, package: Debian OpenMPI, ..." or "MPICH Version: 4.0.2".
/// Callable before MPI_Init, like the call it wraps.
std::string mpi_library_version();

}  // namespace minigpu
