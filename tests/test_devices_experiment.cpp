// The devices experiment: every rule passes, and with two or more ranks the cross-rank copy
// (X from rank 0's GPU, Z = X + Y on rank 1's) runs and verifies.
#include "experiment_harness.hpp"
#include "test_support.hpp"

namespace minigpu {
namespace {

using DevicesExperiment = testing::EmulatedGpus;

std::vector<std::string> case_names(const RunOutcome& out) {
  std::vector<std::string> names;
  for (const auto& r : out.results) names.push_back(r.spec.label);
  return names;
}

TEST_F(DevicesExperiment, EveryRuleVerifiesAndCrossRankCopyNeedsTwoRanks) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const RunOutcome out = testing::run_yaml("run: {repetitions: 2}\nexperiments:\n  - name: devices\n");
  std::vector<std::string> want = {"query", "create", "copy_to", "to", "mismatch"};
  if (ranks >= 2) want.push_back("cross_rank_copy");
  EXPECT_EQ(case_names(out), want);
  for (const auto& r : out.results) EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
  // With two emulated GPUs the mismatch is real: gpu:0 + gpu:1 must have raised the error.
  EXPECT_NE(out.results[4].check.detail.find("gpu:0 and gpu:1"), std::string::npos)
      << out.results[4].check.detail;
}

TEST(DevicesExperimentCpuOnly, MismatchIsNotApplicableWithOneDevice) {
  set_emulated_gpus(0);
  if (num_gpus() > 0) GTEST_SKIP() << "this process has a real GPU";
  const RunOutcome out = testing::run_yaml("run: {repetitions: 1}\nexperiments:\n  - name: devices\n");
  EXPECT_TRUE(out.all_verified);
  EXPECT_NE(out.results[4].check.detail.find("not applicable"), std::string::npos);
  reset_emulated_gpus();
}

}  // namespace
}  // namespace minigpu
