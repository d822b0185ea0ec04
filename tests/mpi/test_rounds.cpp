// run.rounds: an experiment's cases taken in turn, round after round, each row made from all its
// rounds (the runner's repetition discipline otherwise: test_runner.cpp).
#include "core/errors.hpp"
#include "engine/plan_estimate.hpp"
#include "engine/registry.hpp"
#include "experiment_harness.hpp"
#include "io/run_record.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <vector>

namespace minigpu {
namespace {

// Logs what the runner asks of it, case by case; its verification fails in one round if told.
class RoundsFake : public Experiment {
 public:
  static inline std::vector<std::string> log;
  static inline int runs = 0, resumes = 0;
  void configure(ConfigNode& node, const RunContext&) override {
    cases_ = static_cast<int>(node.get<std::int64_t>("cases", 2));
    fail_round_ = static_cast<int>(node.get<std::int64_t>("fail_round", 0));  // of case0; 0: none
  }
  std::vector<CaseSpec> cases() const override {
    std::vector<CaseSpec> out;
    for (int i = 0; i < cases_; ++i) {
      CaseSpec c;
      c.label = "case" + std::to_string(i);
      c.params = {{"index", std::to_string(i)}};
      c.device = cpu();
      c.work = {1e9, 0};
      out.push_back(c);
    }
    return out;
  }
  void setup(const CaseSpec& spec) override {
    label_ = spec.label;
    log.push_back("setup " + label_);
    if (label_ == "case0") ++case0_rounds_;
  }
  void resumed(const CaseSpec& spec) override {
    ++resumes;
    log.push_back("resumed " + spec.label);
  }
  void run_once() override { ++runs; }
  Check verify() override {
    const bool fail = label_ == "case0" && case0_rounds_ == fail_round_;
    return {!fail, fail ? "told to fail in round " + std::to_string(fail_round_) : "ok"};
  }
  void teardown() override { log.push_back("teardown " + label_); }

 private:
  int cases_ = 2, fail_round_ = 0, case0_rounds_ = 0;
  std::string label_;
};
MINIGPU_REGISTER_EXPERIMENT(
    RoundsFake,
    {"rounds_fake", "test double for run.rounds", "does the runner take the cases in turn?", "", {}, ""});

void reset() {
  RoundsFake::log.clear();
  RoundsFake::runs = RoundsFake::resumes = 0;
}

std::vector<std::string> setups() {
  std::vector<std::string> out;
  for (const auto& entry : RoundsFake::log)
    if (entry.rfind("setup ", 0) == 0) out.push_back(entry.substr(6));
  return out;
}

TEST(Rounds, TakeTheCasesInTurnAndMakeEachRowFromAllItsRounds) {
  reset();
  // 5 repetitions in 3 rounds: 2 a round (rounded up), 6 in all; one warm-up in every round.
  const RunOutcome out = testing::run_yaml(
      "run: {rounds: 3}\nexperiments:\n  - {name: rounds_fake, cases: 2, warmups: 1, repetitions: 5}\n");
  EXPECT_EQ(setups(), (std::vector<std::string>{"case0", "case1", "case0", "case1", "case0", "case1"}));
  EXPECT_EQ(RoundsFake::log.size(), 12u) << "each round's setup has its teardown";
  EXPECT_EQ(RoundsFake::runs, 2 * 3 * (1 + 2));
  ASSERT_EQ(out.results.size(), 2u);
  for (std::size_t i = 0; i < out.results.size(); ++i) {
    const CaseResult& r = out.results[i];
    EXPECT_EQ(r.spec.label, "case" + std::to_string(i));
    EXPECT_EQ(r.case_index, static_cast<int>(i) + 1);
    EXPECT_EQ(r.repetitions, 6);
    EXPECT_EQ(r.samples.size(), 6u);
    EXPECT_GT(r.seconds.min, 0) << "every round's times are the ranks' agreed ones, none left at 0";
    EXPECT_EQ(r.repetitions_stopped_by, "repetitions");
    EXPECT_TRUE(r.check.passed);
  }
  EXPECT_TRUE(out.all_verified);
  // One round is today's runner: each case whole before the next.
  reset();
  testing::run_yaml("experiments:\n  - {name: rounds_fake, cases: 2, repetitions: 5}\n");
  EXPECT_EQ(setups(), (std::vector<std::string>{"case0", "case1"}));
  EXPECT_EQ(RoundsFake::runs, 2 * (1 + 5));
}

TEST(Rounds, OneFailedRoundFailsTheRow) {
  reset();
  const RunOutcome out =
      testing::run_yaml("experiments:\n  - {name: rounds_fake, cases: 2, rounds: 3, fail_round: 2}\n");
  ASSERT_EQ(out.results.size(), 2u);
  EXPECT_FALSE(out.results[0].check.passed);
  EXPECT_EQ(out.results[0].check.detail, "told to fail in round 2")
      << "the failed round's word, not the last's";
  EXPECT_TRUE(out.results[1].check.passed);
  EXPECT_FALSE(out.all_verified);
}

TEST(Rounds, AStopKeepsOnlyRowsWhoseLastRoundEnded) {
  // Stopped in round 2 of the second experiment: the first's rows stand, none of the second's.
  reset();
  const std::string yaml =
      "run: {rounds: 2, repetitions: 2}\nexperiments:\n  - {name: rounds_fake, cases: 1}\n"
      "  - {name: rounds_fake, cases: 2}\n";
  RunOutcome out = testing::run_yaml(yaml, [] { return setups().size() >= 5 ? SIGINT : 0; });
  EXPECT_EQ(out.stop_signal, SIGINT);
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_EQ(out.results[0].repetitions, 2);
  // Stopped in the last round after its first case: that row is whole, and kept.
  reset();
  out = testing::run_yaml(yaml, [] { return setups().size() >= 6 ? SIGINT : 0; });
  EXPECT_EQ(out.stop_signal, SIGINT);
  ASSERT_EQ(out.results.size(), 2u);
  EXPECT_EQ(out.results[1].spec.label, "case0");
  EXPECT_EQ(out.results[1].repetitions, 2);
}

TEST(Rounds, AResumedCaseIsCarriedOverOnceBesideTheOthersRounds) {
  reset();
  const std::string yaml = "run: {rounds: 3}\nexperiments:\n  - {name: rounds_fake, cases: 2}\n";
  const CaseSpec first = testing::plan_yaml(yaml).experiments.at(0).cases.at(0);
  CaseResult kept;
  kept.check = {true, "ok"};
  kept.repetitions = 7;
  const RunOutcome out =
      testing::run_yaml(yaml, [] { return 0; }, {{io::resume_key("rounds_fake", first), kept}});
  EXPECT_EQ(RoundsFake::resumes, 1);
  EXPECT_EQ(setups(), (std::vector<std::string>{"case1", "case1", "case1"}));
  ASSERT_EQ(out.results.size(), 2u);
  EXPECT_EQ(out.results[0].repetitions, 7);
  EXPECT_TRUE(out.results[0].resumed());
  EXPECT_EQ(out.results[1].repetitions, 6) << "5 repetitions in 3 rounds: 2 a round";
}

TEST(Rounds, ShareTheRepetitionsAndTheBudgetAndAreBounded) {
  PlannedExperiment p;
  p.repetitions = 10;
  p.rounds = 3;
  RoundRule rule = p.round_rule();
  EXPECT_EQ(rule.repetitions, 4);
  EXPECT_EQ(rule.max_time_s, 0);
  EXPECT_EQ(repetition_stop_reason(rule, {1, 1, 1, 1}, 0), "repetitions");
  p.max_time_s = 6;
  EXPECT_DOUBLE_EQ(p.round_rule().max_time_s, 2);
  p.max_time_s = 0;
  p.target_cv = 0.01;
  rule = p.round_rule();
  EXPECT_DOUBLE_EQ(rule.max_time_s, kDefaultAdaptiveBudgetS / 3)
      << "a target_cv alone: its default budget shared";
  EXPECT_FALSE(repetition_stop_reason(rule, {1, 2, 3, 4}, 3.0));
  EXPECT_EQ(repetition_stop_reason(rule, {1, 2, 3, 4}, 3.4), "max_time_s");
  // From the input: run's value inherited, an entry's own over it, and its range.
  const RunPlan plan = testing::plan_yaml(
      "run: {rounds: 4}\nexperiments:\n  - {name: rounds_fake}\n  - {name: rounds_fake, rounds: 1}\n");
  EXPECT_EQ(plan.experiments.at(0).rounds, 4);
  EXPECT_EQ(plan.experiments.at(1).rounds, 1);
  for (const char* bad : {"0", "1001", "2.5"}) {
    try {
      testing::plan_yaml(std::string("run: {rounds: ") + bad + "}\nexperiments:\n  - {name: rounds_fake}\n");
      ADD_FAILURE() << "rounds: " << bad << " was taken";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("'run.rounds'"), std::string::npos) << e.what();
    }
  }
}

// The console says which experiments go in rounds, since their rows come only at the end.
TEST(Rounds, AreAnnouncedWithWhenTheirRowsCome) {
  const RunPlan plan = testing::plan_yaml(
      "run: {repetitions: 5}\nexperiments:\n  - {name: rounds_fake, cases: 2, rounds: 3}\n"
      "  - {name: rounds_fake, cases: 1}\n");
  EXPECT_EQ(round_notes(plan), (std::vector<std::string>{
                                   "rounds_fake takes its 2 cases in turn, 3 rounds over (2 repetition(s) a "
                                   "round): its rows print when the last round ends"}));
  EXPECT_TRUE(round_notes(testing::plan_yaml("experiments:\n  - {name: rounds_fake}\n")).empty());
}

}  // namespace
}  // namespace minigpu
