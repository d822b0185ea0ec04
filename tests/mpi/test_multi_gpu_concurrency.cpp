// multi_gpu_concurrency under MPI on each device: both modes verified on every rank, the
// multiplies each rank really launches counted by Kokkos's tool hooks, speedup reported.
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

TEST_P(MultiGpuConcurrency, BothModesVerifyDoTheirMultipliesAndReportEfficiency) {
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
  // Sequential: rank 0 does all k·m multiplies per repetition and the others none;
  // concurrent: every rank does its m. Per dtype, repetitions of each mode.
  const long mine = 2L * repetitions * ((rank == 0 ? ranks * per_gpu : 0) + per_gpu);
  EXPECT_EQ(KokkosEventCounter::named(), mine) << "rank " << rank << " of " << ranks;
  for (const auto& r : out.results) EXPECT_EQ(r.spec.device, device());
  ASSERT_EQ(out.results.size(), 4u);
  EXPECT_TRUE(out.all_verified);
  EXPECT_EQ(out.results[0].spec.params[0].second, "sequential");
  EXPECT_EQ(out.results[1].spec.params[0].second, "concurrent");
  // Both modes do the same total work: k multiplies of 2·n³ flops.
  EXPECT_DOUBLE_EQ(out.results[0].work.flops, ranks * per_gpu * 2.0 * 24 * 24 * 24);
  EXPECT_DOUBLE_EQ(out.results[1].work.flops, out.results[0].work.flops);
  int efficiencies = 0;
  for (const auto& f : out.findings) {
    if (f.name.rfind("efficiency_", 0) != 0) continue;
    // speedup/k from the two modes' medians (float32 rows first).
    const std::size_t first = efficiencies == 0 ? 0 : 2;
    const double speedup = out.results[first].seconds.median / out.results[first + 1].seconds.median;
    ++efficiencies;
    if (ranks == 1) {  // one multiply alone both ways: no speedup to report, and the note says why
      EXPECT_FALSE(f.value.has_value()) << f.name;
      EXPECT_NE(f.note.find("need 2 or more ranks"), std::string::npos) << f.note;
      continue;
    }
    ASSERT_TRUE(f.value) << f.name;
    EXPECT_DOUBLE_EQ(*f.value, 100.0 * speedup / ranks) << f.name;
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
