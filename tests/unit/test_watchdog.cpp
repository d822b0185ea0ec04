// The watchdog's evidence (core/progress.hpp) and its verdict (judge_stall), on hand-made ranks.
#include "core/errors.hpp"
#include "core/fault_injection.hpp"
#include "core/profile_region.hpp"
#include "core/progress.hpp"
#include "engine/stats.hpp"
#include "engine/watchdog.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

namespace minigpu {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

RankNews rank_doing(int rank, double idle_s, double budget_s, const std::string& waiting_in,
                    double silent_s = 0) {
  RankNews n;
  n.rank = rank;
  n.host = "n" + std::to_string(rank + 1);
  n.silent_s = silent_s;
  n.heard = true;
  n.now.idle_s = idle_s;
  n.now.budget_s = budget_s;
  n.now.waiting_in = waiting_in;
  n.now.case_label = "matmul_scaling summa p=2 n=1024 cpu float64";
  n.now.repetition = 7;
  n.now.where = "minigpu/matmul_scaling/summa p=2 n=1024/run";
  return n;
}

TEST(Progress, MarksFollowRegionsWaitsAndCases) {
  progress::Board board;
  const progress::Recording recording(board);
  const auto before = board.snapshot();
  {
    const progress::Case watched("lazy fenced cpu float32", 12.5);
    const ProfileRegion outer("minigpu");
    const ProfileRegion inner("run");
    progress::repetition(3);
    const progress::Wait waiting("MPI_Barrier");
    const auto s = board.snapshot();
    EXPECT_EQ(s.case_label, "lazy fenced cpu float32");
    EXPECT_EQ(s.budget_s, 12.5);
    EXPECT_EQ(s.repetition, 3);
    EXPECT_EQ(s.where, "minigpu/run");
    EXPECT_EQ(s.waiting_in, "MPI_Barrier");
    EXPECT_EQ(s.marks, before.marks + 5) << "case, two regions, a repetition and a wait are five marks";
    EXPECT_LT(s.idle_s, 1.0);
  }
  const auto after = board.snapshot();
  EXPECT_EQ(after.case_label, "");
  EXPECT_EQ(after.budget_s, 0) << "outside a case nothing is watched";
  EXPECT_EQ(after.where, before.where);
  EXPECT_EQ(after.waiting_in, "");
}

TEST(Progress, MarksGoOnlyToTheBoardRecordingNow) {
  progress::Board first, second;
  {
    const progress::Recording recording(first);
    progress::enter("minigpu");
    EXPECT_THROW(progress::Recording again(second), std::logic_error) << "one recording at a time";
    progress::leave();
  }
  EXPECT_EQ(first.snapshot().marks, 2u);
  progress::enter("unrecorded");  // no board records: the mark goes nowhere
  progress::leave();
  EXPECT_EQ(first.snapshot().marks, 2u);
  EXPECT_EQ(second.snapshot().marks, 0u);
  const progress::Recording recording(second);
  progress::repetition(1);
  EXPECT_EQ(second.snapshot().marks, 1u) << "a new recording may start once the last one ended";
}

TEST(Watchdog, NewsSurvivesTheWire) {
  const RankNews sent = rank_doing(1, 4.5, 30, "MPI_Allreduce");
  const RankNews got = decode_news(1, "n2", 0.5, encode_news(sent.now));
  EXPECT_TRUE(got.heard);
  EXPECT_EQ(got.now.idle_s, 4.5);
  EXPECT_EQ(got.now.budget_s, 30);
  EXPECT_EQ(got.now.repetition, 7);
  EXPECT_EQ(got.now.waiting_in, "MPI_Allreduce");
  EXPECT_EQ(got.now.case_label, sent.now.case_label);
  EXPECT_EQ(got.now.where, sent.now.where);
  EXPECT_FALSE(decode_news(1, "n2", 0.5, "not news").heard);
}

TEST(Watchdog, NoVerdictWithinTheBudget) {
  const std::vector<RankNews> ranks = {rank_doing(0, 11, 12, "MPI_Allreduce"), rank_doing(1, 11, 12, "", 11)};
  EXPECT_FALSE(judge_stall(0, ranks, 3, "").stalled);
  std::vector<RankNews> unwatched = {rank_doing(0, 500, 0, "MPI_Allreduce")};
  EXPECT_FALSE(judge_stall(0, unwatched, 3, "").stalled) << "outside a case there is no budget";
}

TEST(Watchdog, ASilentRankIsNamedByTheLowestAnsweringOne) {
  const std::vector<RankNews> ranks = {rank_doing(0, 41, 12, "MPI_Allreduce"), rank_doing(1, 0.1, 12, "", 40),
                                       rank_doing(2, 41, 12, "MPI_Allreduce")};
  for (int me : {0, 2}) {
    const StallVerdict v = judge_stall(me, ranks, 3, "results/run.partial-abc");
    ASSERT_TRUE(v.stalled);
    EXPECT_EQ(v.reporter, 0);
    EXPECT_EQ(v.culprits, std::vector<int>{1});
    EXPECT_TRUE(
        has(v.message, "rank 1 (n2) stopped answering (silent for 40 s) last heard in matmul_scaling"))
        << v.message;
    EXPECT_TRUE(has(v.message, "in matmul_scaling summa p=2 n=1024 cpu float64, repetition 7")) << v.message;
    EXPECT_TRUE(has(v.message, "waiting for them: rank 0 in MPI_Allreduce, 2 in MPI_Allreduce")) << v.message;
    EXPECT_TRUE(has(v.message, "exit " + std::to_string(kExitStalled))) << v.message;
    EXPECT_TRUE(has(v.message, "results/run.partial-abc")) << v.message;
  }
}

TEST(Watchdog, WhenRankZeroFallsSilentTheNextOneReports) {
  const std::vector<RankNews> ranks = {rank_doing(0, 0, 12, "", 30), rank_doing(1, 30, 12, "MPI_Barrier")};
  const StallVerdict v = judge_stall(1, ranks, 3, "");
  ASSERT_TRUE(v.stalled);
  EXPECT_EQ(v.reporter, 1);
  EXPECT_EQ(v.culprits, std::vector<int>{0});
}

TEST(Watchdog, ARankStuckOutsideCollectivesIsNamedWhenNoneIsSilent) {
  // Rank 1 still answers (its watchdog beats) but its kernel or write never returns.
  const std::vector<RankNews> ranks = {rank_doing(0, 20, 12, "MPI_Barrier"), rank_doing(1, 20, 12, "", 0.3)};
  const StallVerdict v = judge_stall(0, ranks, 3, "");
  ASSERT_TRUE(v.stalled);
  EXPECT_EQ(v.culprits, std::vector<int>{1});
  EXPECT_TRUE(has(v.message, "rank 1 (n2) stopped progressing in")) << v.message;
}

TEST(Watchdog, RanksAllWaitingOnEachOtherAreAllNamed) {
  const std::vector<RankNews> ranks = {rank_doing(0, 20, 12, "MPI_Barrier"),
                                       rank_doing(1, 20, 12, "MPI_Allreduce")};
  const StallVerdict v = judge_stall(1, ranks, 3, "");
  ASSERT_TRUE(v.stalled);
  EXPECT_EQ(v.culprits, (std::vector<int>{0, 1}));
  EXPECT_TRUE(has(v.message, "waits on another rank")) << v.message;
}

TEST(Watchdog, BetweenCasesAWaitOnASilentRankIsAStall) {
  // Rank 0 stopped inside its write of a case (its last news); rank 1 finished that case and
  // waits for rank 0 in the next one's stop agreement, outside any case: no budget of its own.
  RankNews writer = rank_doing(0, 0.2, 6, "", 4.2);
  writer.now.where = "minigpu/matmul/write";
  RankNews waiter = rank_doing(1, 4.5, 0, "MPI_Allreduce");
  waiter.now.case_label = "";
  const StallVerdict v = judge_stall(1, {writer, waiter}, 3, "results/run.partial-abc");
  ASSERT_TRUE(v.stalled);
  EXPECT_EQ(v.reporter, 1);
  EXPECT_EQ(v.culprits, std::vector<int>{0});
  EXPECT_TRUE(has(v.message, "waiting on the others outside any case")) << v.message;
  EXPECT_FALSE(has(v.message, "budget")) << v.message;
  EXPECT_TRUE(has(v.message, "rank 0 (n1) stopped answering (silent for 4.2 s) last heard in matmul_scaling"))
      << v.message;
  EXPECT_TRUE(has(v.message, "in minigpu/matmul/write")) << v.message;
  EXPECT_TRUE(has(v.message, "waiting for them: rank 1 in MPI_Allreduce")) << v.message;
  // Not before the silence threshold and a second more have passed.
  waiter.now.idle_s = 3.9;
  EXPECT_FALSE(judge_stall(1, {writer, waiter}, 3, "").stalled);
}

TEST(Watchdog, BetweenCasesALiveOrUnheardRankIsWaitedFor) {
  // Rank 0 plots or writes for minutes between cases but answers: no verdict, however long.
  RankNews waiter = rank_doing(1, 500, 0, "MPI_Allreduce");
  EXPECT_FALSE(judge_stall(1, {rank_doing(0, 500, 0, "", 0.4), waiter}, 3, "").stalled);
  // A rank never heard may sit behind a network that drops UDP: no verdict without a budget.
  RankNews unheard = rank_doing(0, 0, 0, "", 500);
  unheard.heard = false;
  EXPECT_FALSE(judge_stall(1, {unheard, waiter}, 3, "").stalled);
  // A rank busy outside any collective between cases is not waiting on anyone.
  EXPECT_FALSE(judge_stall(1, {rank_doing(0, 0, 0, "", 500), rank_doing(1, 500, 0, "")}, 3, "").stalled);
}

TEST(Absence, TimeAwayCountsNeitherAsIdleNorAsSilence) {
  Absence a;
  a.tick(10.0, 0.25, 7, 2.0);  // the first tick has nothing to be late against
  a.tick(10.3, 0.25, 7, 2.3);
  EXPECT_EQ(a.idle_s(2.3), 2.3) << "on time: nothing away";
  EXPECT_EQ(a.silent_s(40, 10.3), 40);
  // Stopped 60 s with no mark since 2.3 s before: a job suspended and resumed as a whole.
  a.tick(70.55, 0.25, 7, 62.55);
  EXPECT_NEAR(a.idle_s(62.55), 2.55, 1e-9) << "the rank's own idleness without the 60 s away";
  EXPECT_EQ(a.silent_s(60.5, 70.55), 0) << "a peer heard last before the stop is not silent yet";
  EXPECT_NEAR(a.silent_s(60.5, 74.55), 4.0, 1e-9) << "silence counts from the return";
  a.tick(70.8, 0.25, 7, 62.8);
  EXPECT_NEAR(a.idle_s(62.8), 2.8, 1e-9) << "still idle since the same mark";
  a.tick(71.05, 0.25, 8, 0.1);
  EXPECT_EQ(a.idle_s(0.1), 0.1) << "a new mark: the time away lies before it";
}

TEST(Absence, AMarkMadeAfterTheReturnKeepsItsIdleness) {
  Absence a;
  a.tick(0.0, 0.25, 1, 0);
  // Away 30 s; the main thread came back first and marked 0.1 s before this tick.
  a.tick(30.25, 0.25, 2, 0.1);
  EXPECT_EQ(a.idle_s(0.1), 0.1);
  a.tick(30.5, 0.25, 2, 0.35);
  EXPECT_EQ(a.idle_s(0.35), 0.35);
  // A tick under a second late is scheduling, not absence.
  a.tick(31.6, 0.25, 2, 1.45);
  EXPECT_EQ(a.idle_s(1.45), 1.45);
}

TEST(Watchdog, ABudgetShorterThanTheSilenceWaitsForIt) {
  // 2 s idle past a 1 s budget: a stopped peer may not look silent yet, so no verdict.
  const std::vector<RankNews> ranks = {rank_doing(0, 2, 1, "MPI_Barrier"), rank_doing(1, 2, 1, "", 2)};
  EXPECT_FALSE(judge_stall(0, ranks, 3, "").stalled);
  const std::vector<RankNews> later = {rank_doing(0, 4.5, 1, "MPI_Barrier"), rank_doing(1, 4.5, 1, "", 4.5)};
  EXPECT_EQ(judge_stall(0, later, 3, "").culprits, std::vector<int>{1});
}

TEST(Stragglers, OneRankFarBehindAllOthersIsNamed) {
  const auto s = find_straggler({0.010, 0.011, 0.020, 0.010});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, 2);
  EXPECT_NEAR(s->ratio, 0.020 / 0.011, 1e-12);
}

TEST(Stragglers, EvenSpreadIdleRanksAndTinyGapsAreNot) {
  EXPECT_FALSE(find_straggler({0.010, 0.014, 0.012}).has_value()) << "1.4x is spread, not a straggler";
  // A product on 2 of 4 ranks: the two working ranks are alike, the idle ones never slowest.
  EXPECT_FALSE(find_straggler({0.100, 0.101, 1e-6, 1e-6}).has_value());
  EXPECT_FALSE(find_straggler({2e-6, 5e-6}).has_value()) << "2.5x of microseconds is noise";
  EXPECT_FALSE(find_straggler({0.5}).has_value());
}

// A product on 1 of 2 ranks (matmul_scaling's p = 1 row): the working rank is the slowest by
// design, and the idle rank is no yardstick. Among the working ranks a slow one is still named.
TEST(Stragglers, OnlyWorkingRanksAreCompared) {
  EXPECT_TRUE(find_straggler({0.5, 4e-5}).has_value()) << "without the mask, the idle rank misleads";
  EXPECT_FALSE(find_straggler({0.5, 4e-5}, {true, false}).has_value());
  EXPECT_FALSE(find_straggler({0.5, 4e-5, 4e-5}, {true, false, false}).has_value());
  const auto s = find_straggler({0.10, 0.30, 4e-5, 0.11}, {true, true, false, true});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, 1) << "the job's rank, not its place among the working ranks";
  EXPECT_NEAR(s->ratio, 0.30 / 0.11, 1e-12);
}

/// The faults MINIGPU_INJECT_FAULT=`spec` asks for, read while it is set (and unset after).
FaultInjection injected(const char* spec) {
  ::setenv("MINIGPU_INJECT_FAULT", spec, 1);
  FaultInjection faults = FaultInjection::from_environment();
  ::unsetenv("MINIGPU_INJECT_FAULT");
  return faults;
}

TEST(FaultInjection, ThrowsOnlyAtTheRankAndPointAskedAndIsReadWhenMade) {
  FaultInjection faults = injected("1:verify");
  EXPECT_NO_THROW(faults.at("verify", 0));
  EXPECT_NO_THROW(faults.at("run", 1));
  EXPECT_THROW(faults.at("verify", 1), std::runtime_error) << "the variable is read when the run starts";
  FaultInjection none = FaultInjection::from_environment();
  EXPECT_NO_THROW(none.at("verify", 1));
  // A hang asked for the 3rd time a point is reached lets the first two pass.
  FaultInjection later = injected("0:run:hang@3");
  EXPECT_NO_THROW(later.at("run", 0));
  EXPECT_NO_THROW(later.at("run", 0));
  EXPECT_NO_THROW(later.at("setup", 0));
  // ":stop@K" is counted as ":hang@K" is: the first K-1 times pass (the K-th stops the process,
  // which check_stall.sh's root_stopped_writing checks).
  FaultInjection stopping = injected("0:write:stop@3");
  EXPECT_NO_THROW(stopping.at("write", 0));
  EXPECT_NO_THROW(stopping.at("write", 0));
  EXPECT_NO_THROW(stopping.at("write", 1));
}

}  // namespace
}  // namespace minigpu
