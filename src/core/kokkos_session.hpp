// Kokkos lifetime: initialised after MPI, finalised before it.
#pragma once

namespace minigpu {

/// RAII Kokkos::initialize/finalize. Consumes --kokkos-* arguments from argv.
class KokkosSession {
 public:
  /// `device_id` >= 0 binds Kokkos to that GPU unless the user chose one already
  /// (--kokkos-device-id, --kokkos-num-devices or KOKKOS_DEVICE_ID).
  KokkosSession(int& argc, char** argv, int device_id = -1);
  ~KokkosSession();
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;
};

}  // namespace minigpu
