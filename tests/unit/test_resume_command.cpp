// The line an interrupted run prints for finishing it: what a user copies must run the same job;
// and the resumed run's progress line, whose time to go must not count the carried-over rows.
#include "app/resume_command.hpp"
#include "io/console_writer.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace minigpu {
namespace {

using Words = std::vector<std::string>;

// argv as a launcher hands it to a rank.
Words resume_of(Words args, int ranks) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return resume_command(static_cast<int>(argv.size()), argv.data(), ranks);
}

class ResumeCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("MINIGPU_RESUME_WITH");
    unsetenv("SLURM_STEP_ID");
  }
  void TearDown() override { SetUp(); }
};

TEST_F(ResumeCommand, OneRankIsTheBinaryAsInvokedLessResumeAndOutputDir) {
  EXPECT_EQ(resume_of({"build/src/minigpu", "run", "in.yaml", "--repetitions", "300", "--output-dir", "out",
                       "--resume=old", "--only", "x"},
                      1),
            (Words{"build/src/minigpu", "run", "in.yaml", "--repetitions", "300", "--only", "x"}));
}

TEST_F(ResumeCommand, SeveralRanksStartWithALauncherAndTheirCount) {
  // No launcher among this test's ancestors names this binary: the MPI standard's launcher.
  EXPECT_EQ(resume_of({"/no/such/minigpu", "run", "in.yaml"}, 2),
            (Words{"mpiexec", "-n", "2", "/no/such/minigpu", "run", "in.yaml"}));
  // srun's tasks are slurmstepd's children, so srun is never found among them.
  setenv("SLURM_STEP_ID", "0", 1);
  EXPECT_EQ(resume_of({"/no/such/minigpu", "run", "in.yaml"}, 4),
            (Words{"srun", "-n", "4", "/no/such/minigpu", "run", "in.yaml"}));
}

TEST_F(ResumeCommand, ALauncherScriptSaysWhatItIs) {
  setenv("MINIGPU_RESUME_WITH", "scripts/run.sh -n 2", 1);
  EXPECT_EQ(resume_of({"build/src/minigpu", "run", "in.yaml", "--resume", "old"}, 2),
            (Words{"scripts/run.sh", "-n", "2", "in.yaml"}));
}

// A run resumed after 1 of 4 cases: the carried-over row took no time, so 9.2 s for the one
// case measured here leaves about 2 x 9.2 s for the other two (counting it as 2 cases gave 9 s).
TEST(ResumedProgress, TimeToGoCountsOnlyTheCasesMeasuredInThisRun) {
  std::ostringstream out;
  io::ConsoleWriter console(out, true);
  CaseResult row;
  row.experiment = "matmul_scaling";
  row.check.passed = true;
  row.check.detail = "max rel error 0 [resumed]";
  console.case_finished(row, 1, 4, 0.0);
  EXPECT_NE(out.str().find("[case 1 of 4, 0.0 s elapsed]"), std::string::npos) << out.str();
  row.check.detail = "max rel error 0";
  console.case_finished(row, 2, 4, 9.2);
  EXPECT_NE(out.str().find("[case 2 of 4, 9.2 s elapsed, about 18 s to go]"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace minigpu
