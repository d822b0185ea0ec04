// The registry, the runner's repetition discipline and both writers, via a fake experiment
// (statistics, findings and checks: test_findings.cpp).
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "engine/stats.hpp"
#include "experiment_harness.hpp"
#include "io/run_directory.hpp"
#include "io/run_record.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <unistd.h>

namespace minigpu {
namespace {

// Counts calls; "fails" when configured to, so FAIL rows can be produced on purpose.
class FakeExperiment : public Experiment, public Analysis {
 public:
  static inline int runs = 0, setups = 0, teardowns = 0;
  void configure(ConfigNode& node, const RunContext& ctx) override {
    ctx_ = ctx;
    cases_ = static_cast<int>(node.get<std::int64_t>("cases", 2));
    fail_ = node.get<bool>("fail", false);
    phases_ = node.get<bool>("phases", false);
    calibrate_ = node.get<std::string>("calibrate", "");  // "setup", "run" or none
  }
  std::vector<CaseSpec> cases() const override {
    std::vector<CaseSpec> out;
    for (int i = 0; i < cases_; ++i) {
      CaseSpec c;
      c.label = "case" + std::to_string(i);
      c.params = {{"index", std::to_string(i)}, {"note", i == 0 ? "has,comma" : "plain"}};
      c.device = cpu();
      c.work = {1e9, 2e9};
      out.push_back(c);
    }
    return out;
  }
  void setup(const CaseSpec&) override {
    ++setups;
    if (calibrate_ == "setup") calibrate();
    if (calibrate_ == "setup_three") calibrate_three();
  }
  void resumed(const CaseSpec&) override {
    if (calibrate_ == "resumed_three") calibrate_three();
  }
  void run_once() override {
    ++runs;
    if (calibrate_ == "run") calibrate();
    if (phases_) {
      end_phase("compute");
      end_phase("comm");
      end_phase("compute");  // a repeated name accumulates
    }
  }
  Check verify() override { return {!fail_, fail_ ? "told to fail" : "ok"}; }
  void teardown() override { ++teardowns; }
  std::vector<Finding> findings(const std::vector<CaseResult>& r) const override {
    Finding seen{"", "cases_seen", static_cast<double>(r.size()), "cases", ""};
    for (const auto& row : r) seen.drawn_from({&row});
    return {seen};
  }

 private:
  // What a model's calibration does: asks the engine to time something, 3 runs after a warm-up.
  void calibrate() {
    ctx_.calibration->time(
        "fake calibration", [] { FakeExperiment::calibrated += 1; }, 3, 1, true, TimedWork::this_rank);
  }
  // A model's whole calibration: two GEMMs of this rank's own, then a ping-pong with another.
  void calibrate_three() {
    for (const char* what : {"own 1", "own 2"})
      ctx_.calibration->time(
          what, [] { FakeExperiment::calibrated += 1; }, 3, 1, true, TimedWork::this_rank);
    ctx_.calibration->time(
        "exchange", [] { FakeExperiment::exchanged += 1; }, 3, 1, false, TimedWork::with_other_ranks);
  }
  RunContext ctx_;
  int cases_ = 2;
  bool fail_ = false;
  bool phases_ = false;
  std::string calibrate_;

 public:
  static inline int calibrated = 0, exchanged = 0;
};
MINIGPU_REGISTER_EXPERIMENT(FakeExperiment, {"fake",
                                             "test double for the runner",
                                             "does the runner time what it should?",
                                             "",
                                             {{"cases_seen", "cases", "how many cases findings() saw"}},
                                             ""});

TEST(Registry, FindingPatternsMatchWholeNamesOnly) {
  ExperimentDescription about{
      "x", "d", "q", "", {{"peak_gbps_<group>", "GB/s", "best"}, {"a.<dtype>.b", "x", "r"}}, ""};
  ASSERT_NE(about.finding_for("peak_gbps_h2d_pinned"), nullptr);
  EXPECT_EQ(about.finding_for("peak_gbps_h2d_pinned")->unit, "GB/s");
  EXPECT_EQ(about.finding_for("peak_gbps_"), nullptr);  // a placeholder stands for something
  EXPECT_EQ(about.finding_for("xpeak_gbps_d2d"), nullptr);
  EXPECT_EQ(about.finding_for("peak_gbps_d2d extra"), nullptr);
  ASSERT_NE(about.finding_for("a.float32.b"), nullptr);
  EXPECT_EQ(about.finding_for("aXfloat32.b"), nullptr);  // the dot is literal
}

TEST(Registry, RefusesWhatTheDocsCouldNotUse) {
  const auto make = [] { return std::unique_ptr<Experiment>(new FakeExperiment()); };
  EXPECT_THROW(ExperimentRegistry::add({"nameless_question", "d", "", "", {}, ""}, make), std::logic_error);
  EXPECT_THROW(
      ExperimentRegistry::add({"twice", "d", "q", "", {{"a_<x>", "x", "r"}, {"a_<x>", "x", "r"}}, ""}, make),
      std::logic_error);
  EXPECT_THROW(ExperimentRegistry::add({"fake", "d", "q", "", {}, ""}, make), std::logic_error);  // taken
  EXPECT_EQ(ExperimentRegistry::find("nameless_question"), nullptr);
  EXPECT_EQ(ExperimentRegistry::find("twice"), nullptr);
}

TEST(Registry, UndeclaredFindingsAreRefused) {
  EXPECT_NO_THROW(ExperimentRegistry::check_declared("fake", "cases_seen", "cases"));
  EXPECT_THROW(ExperimentRegistry::check_declared("fake", "cases_missed", "cases"), std::logic_error);
  EXPECT_THROW(ExperimentRegistry::check_declared("fake", "cases_seen", "x"), std::logic_error);  // unit
  EXPECT_THROW(ExperimentRegistry::check_declared("no_such", "cases_seen", "cases"), std::logic_error);
}

TEST(Runner, RepeatsPastTheMinimumOnlyWhenAskedAndSaysWhyItStopped) {
  PlannedExperiment fixed;
  fixed.repetitions = 3;
  EXPECT_FALSE(repetition_stop_reason(fixed, {1, 1}, 100));
  EXPECT_EQ(repetition_stop_reason(fixed, {1, 5, 9}, 0), "repetitions");
  PlannedExperiment by_cv;
  by_cv.repetitions = 3;
  by_cv.target_cv = 0.1;
  EXPECT_FALSE(repetition_stop_reason(by_cv, {1, 2, 3}, 6)) << "cv 0.5 > 0.1 with 6 s of a 10 s budget";
  EXPECT_EQ(repetition_stop_reason(by_cv, {1, 1.05, 0.95}, 3), "target_cv") << "cv 0.05";
  EXPECT_EQ(repetition_stop_reason(by_cv, {1, 2, 3, 4}, 10), "max_time_s") << "the default budget";
  PlannedExperiment by_time;
  by_time.repetitions = 3;
  by_time.max_time_s = 2;
  EXPECT_FALSE(repetition_stop_reason(by_time, {0.5, 0.5, 0.5}, 1.9));
  EXPECT_EQ(repetition_stop_reason(by_time, {0.5, 0.5, 0.5}, 2), "max_time_s") << "wall time, not the sum";
}

TEST(Runner, AdaptiveRepetitionsAreRecorded) {
  // A fake repetition takes microseconds: 100 ms of them is many more than 2 (10 ms once ran
  // out after 2 on an oversubscribed, loaded 2-core machine).
  const RunOutcome out = testing::run_yaml(
      "run: {warmups: 0, repetitions: 2}\nexperiments:\n  - {name: fake, max_time_s: 0.1}\n");
  for (const auto& r : out.results) {
    EXPECT_EQ(r.repetitions_stopped_by, "max_time_s");
    EXPECT_GT(r.repetitions, 2);
    EXPECT_EQ(r.samples.size(), static_cast<std::size_t>(r.repetitions));
  }
}

TEST(Runner, DropsWarmupsAndRecordsEveryRepetition) {
  FakeExperiment::runs = FakeExperiment::setups = FakeExperiment::teardowns = 0;
  const RunOutcome out =
      testing::run_yaml("experiments:\n  - {name: fake, cases: 3, warmups: 2, repetitions: 4}\n");
  EXPECT_EQ(FakeExperiment::runs, 3 * (2 + 4));
  EXPECT_EQ(FakeExperiment::setups, 3);
  EXPECT_EQ(FakeExperiment::teardowns, 3);
  ASSERT_EQ(out.results.size(), 3u);
  for (const auto& r : out.results) {
    EXPECT_EQ(r.repetitions, 4);
    EXPECT_LE(r.seconds.min, r.seconds.median);
    EXPECT_LE(r.seconds.median, r.seconds.max);
    EXPECT_GE(r.rank_means.max, r.rank_means.min);
    EXPECT_DOUBLE_EQ(r.gbps, 1.0 / r.seconds.median);
    EXPECT_DOUBLE_EQ(r.gflops, 2.0 / r.seconds.median);
    EXPECT_TRUE(r.check.passed);
  }
  EXPECT_TRUE(out.all_verified);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].experiment, "fake");
  EXPECT_EQ(out.findings[0].value, std::optional<double>(3.0));
}

// What an experiment times before its cases (a model's calibration) is the engine's: asked for
// in setup through the context, timed and recorded under the experiment (run.json's
// `calibration`), and refused inside a case's timed repetitions, where it would count as the
// case's own work.
TEST(Runner, CalibrationIsTimedAndRecordedByTheEngineAndNeverInsideARepetition) {
  FakeExperiment::calibrated = 0;
  const RunOutcome out = testing::run_yaml("experiments:\n  - {name: fake, cases: 2, calibrate: setup}\n");
  EXPECT_EQ(FakeExperiment::calibrated, 2 * (1 + 3)) << "per setup: one warm-up and three timed runs";
  const auto section = std::find_if(out.sections.begin(), out.sections.end(),
                                    [](const auto& s) { return s.first == "calibration"; });
  ASSERT_NE(section, out.sections.end());
  const nlohmann::json& timed = section->second.at("fake");
  ASSERT_EQ(timed.size(), 2u);
  for (const auto& t : timed) {
    EXPECT_EQ(t.at("what"), "fake calibration");
    EXPECT_EQ(t.at("runs"), 3);
    EXPECT_LE(t.at("best_s").get<double>(), t.at("median_s").get<double>());
    EXPECT_GE(t.at("best_s").get<double>(), 0.0);
  }
  const RunOutcome plain = testing::run_yaml("experiments:\n  - {name: fake, cases: 1}\n");
  EXPECT_TRUE(std::none_of(plain.sections.begin(), plain.sections.end(), [](const auto& s) {
    return s.first == "calibration";
  })) << "no section when nothing was calibrated";
  EXPECT_THROW(testing::run_yaml("experiments:\n  - {name: fake, cases: 1, calibrate: run}\n"),
               std::logic_error);
  // Refused only while the case is timed: the next run's setup may calibrate again.
  EXPECT_NO_THROW(testing::run_yaml("experiments:\n  - {name: fake, cases: 1, calibrate: setup}\n"));
}

// Ctrl-C during a model's calibration waited 5 s for its GEMMs (n = 4096, 2 ranks). A stop now
// gives up the rank's own timings, even between runs, and nothing else: a timing with other
// ranks is still run (their messages stay matched), nothing given up is recorded, and the case
// set up on given-up figures is dropped.
TEST(Runner, AStopDuringCalibrationGivesUpTheRanksOwnTimingsAndDropsTheCase) {
  FakeExperiment::calibrated = FakeExperiment::exchanged = FakeExperiment::runs = 0;
  // The signal arrives after own 1's warm-up and first run.
  const StopPoll stop = [] { return FakeExperiment::calibrated >= 2 ? SIGINT : 0; };
  const RunOutcome out =
      testing::run_yaml("experiments:\n  - {name: fake, cases: 2, calibrate: setup_three}\n", stop);
  EXPECT_EQ(FakeExperiment::calibrated, 2) << "own 1 stopped between its runs; own 2 never ran";
  EXPECT_EQ(FakeExperiment::exchanged, 1 + 3) << "the exchange ran whole";
  EXPECT_EQ(FakeExperiment::runs, 0) << "no repetition on given-up figures";
  EXPECT_EQ(out.stop_signal, SIGINT);
  EXPECT_TRUE(out.results.empty());
  EXPECT_TRUE(out.findings.empty());
  const auto section = std::find_if(out.sections.begin(), out.sections.end(),
                                    [](const auto& s) { return s.first == "calibration"; });
  ASSERT_NE(section, out.sections.end());
  ASSERT_EQ(section->second.at("fake").size(), 1u) << section->second.dump();
  EXPECT_EQ(section->second.at("fake")[0].at("what"), "exchange");
}

// A resumed case's setup calibrates for the experiment's model alone; given up there, the model
// would summarise NaN: the run stops after that case, before the experiment's findings.
TEST(Runner, AStopDuringAResumedCasesCalibrationEndsTheRunBeforeItsSummary) {
  FakeExperiment::calibrated = FakeExperiment::exchanged = 0;
  const std::string yaml = "experiments:\n  - {name: fake, cases: 1, calibrate: resumed_three}\n";
  CaseSpec only = testing::plan_yaml(yaml).experiments.at(0).cases.at(0);
  CaseResult kept;
  kept.check = {true, "ok"};
  const RunOutcome out = testing::run_yaml(yaml, [] { return FakeExperiment::calibrated >= 1 ? SIGTERM : 0; },
                                           {{io::resume_key("fake", only), kept}});
  EXPECT_EQ(FakeExperiment::calibrated, 1);
  EXPECT_EQ(out.stop_signal, SIGTERM);
  ASSERT_EQ(out.results.size(), 1u) << "the resumed case is kept";
  EXPECT_TRUE(out.findings.empty()) << "no findings from a model given up";
  // Without the stop the same run summarises: the test could fail.
  FakeExperiment::calibrated = 0;
  const RunOutcome whole = testing::run_yaml(yaml, [] { return 0; }, {{io::resume_key("fake", only), kept}});
  EXPECT_EQ(whole.stop_signal, 0);
  EXPECT_EQ(whole.findings.size(), 1u);
}

TEST(Runner, FailedVerificationMarksTheRunFailed) {
  const RunOutcome out = testing::run_yaml("experiments:\n  - {name: fake, cases: 1, fail: true}\n");
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_FALSE(out.results[0].check.passed);
  EXPECT_FALSE(out.all_verified);
}

TEST(Runner, SplitsRepetitionsIntoLabelledPhases) {
  const RunOutcome out =
      testing::run_yaml("experiments:\n  - {name: fake, cases: 1, phases: true, repetitions: 3}\n");
  ASSERT_EQ(out.results.size(), 1u);
  const auto& phases = out.results[0].phases;
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].first, "compute");
  EXPECT_EQ(phases[1].first, "comm");
  EXPECT_LE(phases[0].second.median + phases[1].second.median, out.results[0].seconds.max * 1.5 + 1e-6);
  const std::string csv = io::results_csv(out.results);
  EXPECT_NE(csv.find(",compute_median_s,comm_median_s\n"), std::string::npos) << csv;
  const RunOutcome plain = testing::run_yaml("experiments:\n  - {name: fake, cases: 1}\n");
  EXPECT_TRUE(plain.results[0].phases.empty()) << "no phases unless the experiment labels them";
}

TEST(Writers, CsvIsTidyAndQuoted) {
  const RunOutcome out = testing::run_yaml("experiments:\n  - {name: fake, cases: 2, repetitions: 1}\n");
  const std::string csv = io::results_csv(out.results);
  std::istringstream lines(csv);
  std::string header, row0, row1, extra;
  std::getline(lines, header);
  std::getline(lines, row0);
  std::getline(lines, row1);
  EXPECT_FALSE(std::getline(lines, extra)) << "one row per case";
  EXPECT_EQ(header.rfind("experiment,case,index,note,device,dtype,reps,min_s,median_s,mean_s,max_s", 0), 0u)
      << header;
  EXPECT_NE(header.find(",work_bytes,work_flops,gbps,gflops,pct_of_ceiling,ceiling,reliable,unreliable_"
                        "because,verified,check"),
            std::string::npos);
  EXPECT_EQ(row0.rfind("fake,case0,0,\"has,comma\",cpu,float32,1,", 0), 0u) << row0;
  EXPECT_NE(row1.find(",true,ok"), std::string::npos) << row1;
}

TEST(Writers, RunDirectoryIsCompleteAndNeverOverwritten) {
  const RunOutcome out = testing::run_yaml("experiments:\n  - {name: fake, cases: 1, repetitions: 1}\n");
  io::RunRecord p;
  p.input_file = "x.yaml";
  const auto record = io::run_json(p, out.results, out.findings);
  EXPECT_EQ(record["results"].size(), 1u);
  EXPECT_EQ(record["results"][0]["verified"], true);
  EXPECT_EQ(record["findings"][0]["name"], "cases_seen");
  EXPECT_EQ(record["input_file"], "x.yaml");

  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("minigpu-writer-" + std::to_string(::getpid()));
  fs::remove_all(root);
  // A user's directory that happens to carry the temporary's old fixed name is left alone.
  const fs::path users = root / "demo-20260101T000000Z.partial";
  fs::create_directories(users);
  std::ofstream(users / "keep.txt") << "mine\n";
  const std::string first = io::write_run_directory(root.string(), "demo", "20260101T000000Z", "a\n", record);
  const std::string second =
      io::write_run_directory(root.string(), "demo", "20260101T000000Z", "b\n", record);
  EXPECT_EQ(fs::path(first).filename(), "demo-20260101T000000Z");
  EXPECT_EQ(fs::path(second).filename(), "demo-20260101T000000Z-1");
  EXPECT_TRUE(fs::exists(fs::path(first) / "results.csv"));
  EXPECT_TRUE(fs::exists(fs::path(second) / "run.json"));
  EXPECT_TRUE(fs::exists(users / "keep.txt")) << "a directory the run did not create was removed";
  fs::remove_all(users);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(root)) {
    EXPECT_EQ(e.path().string().find(".partial"), std::string::npos) << "no temporary left behind";
    ++entries;
  }
  EXPECT_EQ(entries, 2);
  fs::remove_all(root);
}

// Eight runs of one name finishing in the same second (a Slurm job array) each get their own
// directory: the name is claimed by the rename, so no run loses the race and none is left in
// its temporary. Threads in one process race exactly as processes do on rename(2).
TEST(Writers, RunsOfOneNameAndSecondFinishingTogetherGetDistinctDirectories) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("minigpu-race-" + std::to_string(::getpid()));
  constexpr int kRuns = 8, kRounds = 40;  // a look-then-rename lost this race within a few rounds
  for (int round = 0; round < kRounds; ++round) {
    fs::remove_all(root);
    std::vector<std::unique_ptr<io::RunDirectory>> dirs;
    for (int i = 0; i < kRuns; ++i) {
      dirs.push_back(std::make_unique<io::RunDirectory>(root.string(), "array", "20260101T000000Z"));
      dirs.back()->write("run," + std::to_string(i) + "\n", nlohmann::json{{"run", i}});
    }
    std::vector<std::string> finished(kRuns), errors(kRuns);
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kRuns; ++i) {
      threads.emplace_back([&, i] {
        ready.fetch_add(1);
        while (ready.load() < kRuns) {
        }  // all threads rename at once
        try {
          finished[i] = dirs[i]->finish();
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
    std::set<std::string> names;
    for (int i = 0; i < kRuns; ++i) {
      ASSERT_EQ(errors[i], "") << "round " << round << ", run " << i;
      names.insert(fs::path(finished[i]).filename().string());
      std::ifstream csv(fs::path(finished[i]) / "results.csv");
      std::string line;
      std::getline(csv, line);
      EXPECT_EQ(line, "run," + std::to_string(i))
          << "run " << i << "'s directory holds another run's results";
    }
    std::set<std::string> expected{"array-20260101T000000Z"};
    for (int k = 1; k < kRuns; ++k) expected.insert("array-20260101T000000Z-" + std::to_string(k));
    ASSERT_EQ(names, expected) << "round " << round;
    for (const auto& e : fs::directory_iterator(root))
      EXPECT_EQ(e.path().string().find(".partial"), std::string::npos) << e.path();
  }
  fs::remove_all(root);
}
}  // namespace
}  // namespace minigpu
