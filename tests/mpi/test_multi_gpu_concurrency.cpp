// multi_gpu_concurrency under MPI on each device: both modes timed as phases of every
// repetition and verified on every rank, the multiplies each rank really launches counted by
// Kokkos's tool hooks, the efficiency taken from the phases' medians.
#include "comm/communicator.hpp"
#include "core/errors.hpp"
#include "experiment_harness.hpp"
#include "kokkos_events.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace minigpu {
namespace {

using testing::KokkosEventCounter;

class MultiGpuConcurrency : public testing::OnEachDevice {};
MINIGPU_ON_EACH_DEVICE(MultiGpuConcurrency);

TEST(KokkosEventCounterProbe, SeesOneLaunchPerKernel) {
  KokkosEventCounter counter("gemm::reference");
  const RunOutcome out = testing::run_yaml(
      "run: {repetitions: 1, warmups: 0}\n"
      "experiments:\n  - {name: matmul, sizes: [4], devices: [cpu], variants: [reference], dtypes: "
      "[float32]}\n");
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_EQ(KokkosEventCounter::named(), 1) << "one repetition launches the reference kernel once";
}

TEST_P(MultiGpuConcurrency, BothModesAsPhasesVerifyDoTheirMultipliesAndReportEfficiency) {
  const int ranks = comm::Communicator::world().size(), rank = comm::Communicator::world().rank();
  const int repetitions = 2, per_gpu = 3;
  // A named kernel: auto would time both kernels while configuring, and the counter see them.
  KokkosEventCounter counter("gemm::multiply");
  const RunOutcome out = testing::run_yaml(
      "run: {repetitions: 2, warmups: 0}\n"
      "experiments:\n  - name: multi_gpu_concurrency\n    n: 24\n    multiplies_per_gpu: 3\n    kernel: "
      "native\n"
      "    dtypes: [float32, float64]\n" +
      device_key());
  // Per repetition, in turn: rank 0 does all k·m multiplies and the others none; the warm-up:
  // one on every rank; at once: every rank its m. Two dtypes, `repetitions` each.
  const long mine = 2L * repetitions * ((rank == 0 ? ranks * per_gpu : 0) + 1 + per_gpu);
  EXPECT_EQ(KokkosEventCounter::named(), mine) << "rank " << rank << " of " << ranks;
  ASSERT_EQ(out.results.size(), 2u);  // one row per dtype, both modes in it
  EXPECT_TRUE(out.all_verified);
  for (const auto& r : out.results) {
    EXPECT_EQ(r.spec.device, device());
    // Both modes do k·m multiplies of 2·n³ flops, the warm-up one on each of the k ranks.
    EXPECT_DOUBLE_EQ(r.work.flops, (2.0 * ranks * per_gpu + ranks) * 2.0 * 24 * 24 * 24);
    std::vector<std::string> phases;
    for (const auto& [name, stats] : r.phases) phases.push_back(name);
    EXPECT_EQ(phases, (std::vector<std::string>{"in_turn", "warm_up", "at_once"}));
  }
  int efficiencies = 0;
  for (const auto& f : out.findings) {
    if (f.name.rfind("efficiency_", 0) != 0) continue;
    const CaseResult& r = out.results.at(static_cast<std::size_t>(efficiencies++));  // float32 first
    EXPECT_EQ(f.name, "efficiency_" + to_string(r.spec.dtype));
    if (ranks == 1) {  // one multiply alone both ways: no speedup to report, and the note says why
      EXPECT_FALSE(f.value.has_value()) << f.name;
      EXPECT_NE(f.note.find("need 2 or more ranks"), std::string::npos) << f.note;
      continue;
    }
    // speedup/k from the two modes' phase medians, and drawn from the row
    ASSERT_TRUE(f.value) << f.name;
    EXPECT_DOUBLE_EQ(*f.value, 100.0 * *r.phase_median("in_turn") / *r.phase_median("at_once") / ranks);
    EXPECT_EQ(f.rows, std::vector<int>{r.case_index}) << f.name;
  }
  EXPECT_EQ(efficiencies, 2);
}

TEST(MultiGpuConcurrency, RejectsBadSizes) {
  EXPECT_THROW(testing::plan_yaml("experiments:\n  - {name: multi_gpu_concurrency, n: 0}\n"), InputError);
  try {
    testing::plan_yaml("experiments:\n  - {name: multi_gpu_concurrency, multiplies_per_gpu: -3}\n");
    FAIL() << "negative multiplies_per_gpu must be rejected";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("multiplies_per_gpu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace minigpu
