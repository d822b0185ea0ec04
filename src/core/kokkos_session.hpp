// Kokkos lifetime: initialised after MPI, finalised before it.
#pragma once

namespace minigpu {

/// RAII Kokkos::initialize/finalize. Consumes --kokkos-* arguments from argv.
class KokkosSession {
 public:
  /// `device_id` >= 0 binds Kokkos to that GPU unless the user chose one already
  /// (--kokkos-device-id, --kokkos-num-devices or KOKKOS_DEVICE_ID). A threaded host space
  /// gets `host_threads` unless --kokkos-threads (or --kokkos-num-threads), KOKKOS_NUM_THREADS
  /// or OMP_NUM_THREADS says otherwise; the host BLAS then gets Kokkos's host concurrency,
  /// unless OPENBLAS_NUM_THREADS sets its own.
  KokkosSession(int& argc, char** argv, int device_id = -1, int host_threads = 1);
  ~KokkosSession();
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;
};

}  // namespace minigpu
