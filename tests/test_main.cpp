// One GoogleTest main for every test binary: MPI, then Kokkos, then the tests. Only rank 0
// prints, and a failure on any rank fails the test on every rank.
#include "comm/mpi_session.hpp"
#include "core/kokkos_session.hpp"

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  minigpu::MpiSession mpi(&argc, &argv);
  int failed = 0;
  {
    minigpu::KokkosSession kokkos(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    if (!mpi.is_root()) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
    }
    failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  }
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any_failed;
}
