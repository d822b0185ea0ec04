// The devices experiment on each device: every rule passes, the mismatch rule names both
// devices wherever there are two, and with two or more ranks the cross-rank copy (X from rank
// 0's device, Z = X + Y on rank 1's) runs and verifies. The fixture resets emulation after
// every test, however the test ends.
#include "comm/communicator.hpp"
#include "experiment_harness.hpp"
#include "test_support.hpp"

namespace minigpu {
namespace {

class DevicesExperiment : public testing::OnEachDevice {};
MINIGPU_ON_EACH_DEVICE(DevicesExperiment);

std::vector<std::string> case_names(const RunOutcome& out) {
  std::vector<std::string> names;
  for (const auto& r : out.results) names.push_back(r.spec.label);
  return names;
}

TEST_P(DevicesExperiment, EveryRuleVerifiesAndCrossRankCopyNeedsTwoRanks) {
  // The chapter's rules run on try_gpu(), which no input key changes.
  if (try_gpu() != device())
    GTEST_SKIP() << "try_gpu() is " << describe(try_gpu()) << " here: its own instance runs them";
  const int ranks = comm::Communicator::world().size();
  const RunOutcome out = testing::run_yaml("run: {repetitions: 2}\nexperiments:\n  - name: devices\n");
  std::vector<std::string> want = {"query", "create", "copy_to", "to", "mismatch"};
  if (ranks >= 2) want.push_back("cross_rank_copy");
  EXPECT_EQ(case_names(out), want);
  for (const auto& r : out.results) {
    EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
    EXPECT_EQ(r.spec.device, device()) << "the rules run on try_gpu(): the device under test";
  }
  ASSERT_GE(out.results.size(), 5u);
  const std::string& mismatch = out.results[4].check.detail;
  if (GetParam() == testing::TestDevice::emulated) {
    // Two emulated GPUs: the mismatch is real, gpu:0 + gpu:1 must have raised the error.
    EXPECT_NE(mismatch.find("gpu:0 and gpu:1"), std::string::npos) << mismatch;
  } else if (GetParam() == testing::TestDevice::gpu) {
    EXPECT_NE(mismatch.find("gpu:0 and cpu"), std::string::npos) << mismatch;
  } else {
    EXPECT_NE(mismatch.find("not applicable"), std::string::npos)
        << "the cpu alone has nothing to mix: " << mismatch;
  }
}

}  // namespace
}  // namespace minigpu
