// Kokkos lifetime: initialised after MPI, finalised before it.
#pragma once

namespace minigpu {

/// RAII Kokkos::initialize/finalize. Consumes --kokkos-* arguments from argv.
class KokkosSession {
 public:
  KokkosSession(int& argc, char** argv);
  ~KokkosSession();
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;
};

}  // namespace minigpu
