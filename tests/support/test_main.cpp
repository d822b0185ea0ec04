// One GoogleTest main for every test binary: MPI, then Kokkos, then the tests. Only rank 0
// prints; every rank records its failures, rank 0 prints the other ranks' too, and a failure
// on any rank fails the test binary on every rank.
#include "comm/collectives.hpp"
#include "comm/mpi_session.hpp"
#include "core/device.hpp"
#include "core/host_threads.hpp"
#include "core/kokkos_session.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

/// Every failed assertion of this rank, with its test, file and line.
/// (GoogleTest holds its own lock while reporting a result: the test's name is taken when
/// it starts, never asked for then.)
class FailureRecorder : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo& test) override {
    test_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    text_ += test_ + " at " + (result.file_name() ? result.file_name() : "?") + ":" +
             std::to_string(result.line_number()) + "\n" + result.summary() + "\n";
  }
  const std::string& text() const { return text_; }

 private:
  std::string test_ = "(outside a test)";
  std::string text_;
};

const minigpu::MpiSession* the_mpi_session = nullptr;

}  // namespace

const minigpu::MpiSession& minigpu::testing::mpi_session() { return *the_mpi_session; }

int main(int argc, char** argv) {
  minigpu::MpiSession mpi(&argc, &argv);
  the_mpi_session = &mpi;
  minigpu::GpuEmulation emulation;  // as minigpu's main: the tests' emulated GPUs live here
  int failed = 0;
  auto* recorder = new FailureRecorder;  // owned by gtest's listener list
  {
    // Every test rank runs on this machine, unbound: each takes its share of the cores, as
    // minigpu's own ranks do (a threaded host space then runs the tests' kernels threaded).
    const int cpus = static_cast<int>(minigpu::affinity_cpus().size());
    minigpu::KokkosSession kokkos(argc, argv, -1, minigpu::default_host_threads(cpus, mpi.size()));
    ::testing::InitGoogleTest(&argc, argv);
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    listeners.Append(recorder);
    if (!mpi.is_root()) delete listeners.Release(listeners.default_result_printer());
    failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  }
  const auto world = minigpu::comm::Communicator::world();
  const auto failures = minigpu::comm::allgather_strings(recorder->text(), world);
  if (mpi.is_root()) {
    for (std::size_t rank = 1; rank < failures.size(); ++rank) {
      if (failures[rank].empty()) continue;
      std::printf("[ FAILURES on rank %zu ]\n%s", rank, failures[rank].c_str());
    }
    std::fflush(stdout);
  }
  return minigpu::comm::all_ranks(failed == 0, world) ? 0 : 1;
}
