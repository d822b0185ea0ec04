// multi_gpu_concurrency under MPI: both modes verified on every rank, speedup reported.
#include "core/errors.hpp"
#include "experiment_harness.hpp"

#include <gtest/gtest.h>

namespace minigpu {
namespace {

TEST(MultiGpuConcurrency, BothModesVerifyAndReportEfficiency) {
  const RunOutcome out = testing::run_yaml(
      "run: {repetitions: 2, warmups: 0}\n"
      "experiments:\n  - {name: multi_gpu_concurrency, n: 24, dtypes: [float32, float64]}\n");
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  ASSERT_EQ(out.results.size(), 4u);
  EXPECT_TRUE(out.all_verified);
  EXPECT_EQ(out.results[0].spec.params[0].second, "sequential");
  EXPECT_EQ(out.results[1].spec.params[0].second, "concurrent");
  // Both modes do the same total work: k multiplies of 2·n³ flops.
  EXPECT_DOUBLE_EQ(out.results[0].work.flops, ranks * 2.0 * 24 * 24 * 24);
  EXPECT_DOUBLE_EQ(out.results[1].work.flops, out.results[0].work.flops);
  int efficiencies = 0;
  for (const auto& f : out.findings) {
    if (f.name.rfind("efficiency_", 0) == 0) {
      ++efficiencies;
      EXPECT_GT(f.value, 0.0);
    }
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
