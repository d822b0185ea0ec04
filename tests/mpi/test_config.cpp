// Input validation: every class of error names file, line, column and key.
#include "config/config_node.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "experiment_harness.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace minigpu {
namespace {

// Expects plan_yaml(yaml) to throw InputError whose message contains every fragment.
void expect_input_error(const std::string& yaml, const std::vector<std::string>& fragments) {
  try {
    testing::plan_yaml(yaml);
    ADD_FAILURE() << "no error for:\n" << yaml;
  } catch (const InputError& e) {
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

TEST(Config, AcceptsAMinimalInputAndFillsDefaults) {
  const RunPlan plan = testing::plan_yaml("experiments:\n  - name: devices\n");
  EXPECT_EQ(plan.run.repetitions, 5);
  EXPECT_EQ(plan.run.warmups, 1);
  EXPECT_EQ(plan.run.output_dir, "results");
  EXPECT_EQ(plan.run.dtype, DType::f32);
  ASSERT_EQ(plan.experiments.size(), 1u);
  EXPECT_EQ(plan.experiments[0].repetitions, 5) << "an experiment inherits run.repetitions";
  EXPECT_EQ(plan.resolved_input["run"]["repetitions"], 5) << "defaults are written back";
  EXPECT_EQ(plan.resolved_input["experiments"][0]["warmups"], 1);
}

// The input is read once: its run section, then the caller's settler (the only code that changes
// the process's devices), then the experiments, which list the devices as settled.
TEST(Config, LoadingSettlesTheDevicesThroughTheCallerOnceBeforeTheExperiments) {
  reset_emulated_gpus();
  const int gpus_before = num_gpus();
  const std::string path = "/tmp/minigpu-settle-" + std::to_string(::getpid()) + "-" +
                           std::to_string(RunContext::on(comm::Communicator::world()).rank()) + ".yaml";
  std::ofstream(path) << "run: {emulate_gpus: 3}\nexperiments:\n  - name: devices\n";
  RunContext ctx = RunContext::on(comm::Communicator::world());
  EXPECT_THROW(load_run_plan(path, ctx, {}, {}), std::logic_error)
      << "no settler for an input that needs one";
  EXPECT_EQ(num_gpus(), gpus_before) << "loading changed the process's devices by itself";
  int calls = 0;
  const RunPlan plan = load_run_plan(path, ctx, {}, [&](const RunSettings& s, RunContext& c) {
    ++calls;
    EXPECT_EQ(s.emulate_gpus, 3);
    settle_devices(s);
    c.binding.rule = "set by the settler";
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(num_gpus(), 3);
  EXPECT_EQ(plan.run.emulate_gpus, 3);
  EXPECT_EQ(ctx.binding.rule, "set by the settler") << "the settler's context is the caller's";
  int emulated_cases = 0;  // `devices` lists a case per GPU: configured after the settler ran
  for (const auto& spec : plan.experiments.at(0).cases) emulated_cases += spec.device.is_gpu() ? 1 : 0;
  EXPECT_GE(emulated_cases, 3);
  std::remove(path.c_str());
  reset_emulated_gpus();
}

TEST(Config, PerExperimentRepetitionsOverrideTheRunDefault) {
  const RunPlan plan =
      testing::plan_yaml("run: {repetitions: 3}\nexperiments:\n  - {name: devices, repetitions: 7}\n");
  EXPECT_EQ(plan.experiments[0].repetitions, 7);
}

TEST(Config, UnknownKeysAreErrorsWithPosition) {
  expect_input_error("run:\n  repetitons: 3\nexperiments:\n  - name: devices\n",
                     {":2:3:", "key 'run.repetitons'", "unknown key", "repetitions"});
  expect_input_error("experiments:\n  - name: devices\n    color: red\n",
                     {":3:5:", "experiments[0].color", "unknown"});
  // A misspelt key is named, with its likely intent, at every level; before anything it hides.
  expect_input_error("experimnets:\n  - name: devices\n",
                     {":1:1:", "unknown key 'experimnets'", "did you mean 'experiments'?"});
  expect_input_error("run:\n  repetitons: 3\nexperiments:\n  - name: devices\n",
                     {"did you mean 'repetitions'?"});
  expect_input_error("experiments:\n  - name: lazy\n    elemnts: 5\n", {":3:5:", "did you mean 'elements'?"});
  expect_input_error("experiments:\n  - name: devices\n    color: red\n", {"known keys"});
}

// What yaml-cpp would accept silently: a repeated key (it keeps the first), a second document
// (Load keeps the first), and an experiment that expands to nothing.
TEST(Config, AmbiguousOrEmptyInputsAreRefused) {
  expect_input_error("run:\n  repetitions: 3\n  repetitions: 7\nexperiments: [{name: devices}]\n",
                     {":3:3:", "'run.repetitions' appears twice", "first at line 2"});
  expect_input_error("experiments:\n  - {name: lazy, elements: 5, elements: 6}\n", {"appears twice"});
  expect_input_error("experiments: [{name: devices}]\n---\nexperiments: [{name: lazy}]\n",
                     {":3:", "a second YAML document"});
  expect_input_error("", {"the input is empty"});
  expect_input_error(
      "experiments:\n  - {name: transfer, sizes: [1KiB], chunks: [4096], rank_patterns: none}\n",
      {"experiments[0].name", "no cases"});
}

TEST(Config, ValuesAreReportedReadably) {
  expect_input_error("run: {repetitions: 99999999999999999999}\nexperiments: [{name: devices}]\n",
                     {"run.repetitions", "too large (max 9223372036854775807)"});
  const std::string huge(500, 'x');
  try {
    testing::plan_yaml("run: {dtype: " + huge + "}\nexperiments: [{name: devices}]\n");
    ADD_FAILURE() << "a 500-character dtype was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find(huge), std::string::npos) << "the whole value was echoed";
    EXPECT_NE(what.find("(500 characters)"), std::string::npos) << what;
  }
}

TEST(Config, MissingRequiredKeys) {
  expect_input_error("run: {}\n", {"key 'experiments'", "is required"});
  expect_input_error("experiments:\n  - repetitions: 2\n", {"experiments[0].name", "is required"});
}

TEST(Config, WrongTypes) {
  expect_input_error("run:\n  repetitions: many\nexperiments: [{name: devices}]\n",
                     {":2:3:", "run.repetitions", "must be an integer"});
  expect_input_error("run: [1, 2]\nexperiments: [{name: devices}]\n", {"'run' must be a mapping"});
  expect_input_error("experiments: {name: devices}\n", {"experiments", "non-empty list"});
}

TEST(Config, OutOfRangeValues) {
  expect_input_error("run: {repetitions: 0}\nexperiments: [{name: devices}]\n",
                     {"run.repetitions", "between 1"});
  expect_input_error("run: {warmups: -1}\nexperiments: [{name: devices}]\n", {"run.warmups", "between 0"});
  expect_input_error("run: {dtype: float16}\nexperiments: [{name: devices}]\n",
                     {"run.dtype", "float16", "float32"});
  expect_input_error("run: {emulate_gpus: -2}\nexperiments: [{name: devices}]\n", {"run.emulate_gpus"});
  // One bound with MINIGPU_EMULATE_GPUS.
  expect_input_error("run: {emulate_gpus: 1025}\nexperiments: [{name: devices}]\n",
                     {"run.emulate_gpus", "between 0 and 1024"});
}

// A run name is a directory name: "x\0y" once truncated to "x" and a failed run removed
// <output_dir>/x, so anything the OS would read differently is refused up front.
// Every numeric key of every experiment, written here from the experiments' documented keys
// (inputs/README.md), not from the code: negative, zero where it is not allowed, too large for
// its type, and past its bound are each refused at that key's position.
TEST(Config, EveryNumericKeyRefusesNegativeZeroAndOverflowingValues) {
  struct Key {
    const char* experiment;
    const char* key;
    bool zero_allowed;
    const char* beyond_bound;  // valid as an integer, past the documented limit
  };
  const Key keys[] = {
      {"devices", "warmups", true, "1000001"},
      {"devices", "repetitions", false, "1000001"},
      {"lazy", "elements", false, "1e15"},
      {"linear", "in_features", false, "1000000001"},
      {"linear", "samples", false, "1000000001"},
      {"linear", "batch_size", false, "1000000001"},
      {"linear", "epochs", false, "1000000001"},
      {"logging", "n", false, "100001"},
      {"logging", "steps", false, "10000001"},
      {"matmul", "sizes", false, "[100001]"},
      {"matmul", "cpu_max_size", false, nullptr},
      {"matmul_scaling", "n", false, "100001"},
      {"matmul_scaling", "ranks", false, "[1000]"},
      {"matmul_scaling", "grid", false, "[1000, 1000]"},
      {"multi_gpu_concurrency", "n", false, "100001"},
      {"multi_gpu_concurrency", "multiplies_per_gpu", false, "10001"},
      {"transfer", "sizes", false, "[2PiB]"},
      {"transfer", "chunks", false, "[100000000]"},
  };
  for (const Key& k : keys) {
    std::vector<std::string> values = {"-1", "9223372036854775808", "99999999999999999999", "1e400", "2.5"};
    if (!k.zero_allowed) values.push_back("0");
    if (k.beyond_bound) values.push_back(k.beyond_bound);
    for (const auto& v : values) {
      const std::string value = std::string(k.key) == "grid" && v[0] != '[' ? "[" + v + ", 1]" : v;
      SCOPED_TRACE(std::string(k.experiment) + "." + k.key + " = " + value);
      expect_input_error(
          "experiments:\n  - name: " + std::string(k.experiment) + "\n    " + k.key + ": " + value + "\n",
          {":3:5: key 'experiments[0]." + std::string(k.key) + "'"});
    }
  }
  // The run section's own counts, and the learning rate (a real number).
  for (const auto& v : {"-1", "99999999999999999999", "1e400"}) {
    expect_input_error(std::string("run: {repetitions: ") + v + "}\nexperiments: [{name: devices}]\n",
                       {"key 'run.repetitions'"});
    expect_input_error(std::string("experiments:\n  - name: linear\n    lr: ") + v + "\n",
                       {":3:5: key 'experiments[0].lr'"});
  }
  expect_input_error("experiments:\n  - name: linear\n    lr: 0\n", {":3:5: key 'experiments[0].lr'"});
  // The adaptive-repetition bounds, in run: and per experiment.
  for (const auto& bad : {"target_cv: 1", "target_cv: -0.1", "max_time_s: -1", "max_time_s: 1e9"}) {
    const std::string key = std::string(bad).substr(0, std::string(bad).find(':'));
    expect_input_error(std::string("run: {") + bad + "}\nexperiments: [{name: devices}]\n",
                       {"key 'run." + key + "'"});
    expect_input_error(std::string("experiments:\n  - name: devices\n    ") + bad + "\n",
                       {":3:5: key 'experiments[0]." + key + "'"});
  }
}

TEST(Config, CommandLineOverridesAreValidatedLikeTheFileAndNamedInErrors) {
  const std::string yaml =
      "run: {repetitions: 3}\nexperiments:\n  - {name: matmul, sizes: [8]}\n  - {name: devices}\n"
      "  - {name: matmul, sizes: [16], repetitions: 9}\n";
  const RunPlan plan = testing::plan_yaml(yaml, {"run.repetitions=2", "experiments.matmul.sizes=[4, 12]",
                                                 "experiments[1].warmups=0", "run.dtype=float64"});
  EXPECT_EQ(plan.run.repetitions, 2);
  EXPECT_EQ(plan.experiments[0].repetitions, 2) << "inherits the overridden run.repetitions";
  EXPECT_EQ(plan.experiments[2].repetitions, 9) << "its own key stands";
  EXPECT_EQ(plan.experiments[1].warmups, 0);
  for (std::size_t e : {0u, 2u}) {
    EXPECT_EQ(plan.resolved_input["experiments"][e]["sizes"], nlohmann::json::array({4, 12}));
  }
  EXPECT_EQ(plan.experiments[0].cases.front().dtype, DType::f64);
  // Every entry at once: what --repetitions does.
  const RunPlan all = testing::plan_yaml(yaml, {"experiments.*.repetitions=4"});
  for (const auto& e : all.experiments) EXPECT_EQ(e.repetitions, 4);
  const auto refused = [&](const std::string& set, const std::vector<std::string>& fragments) {
    try {
      testing::plan_yaml(yaml, {set});
      ADD_FAILURE() << "no error for --set " << set;
    } catch (const InputError& e) {
      for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
  };
  refused("run.repetitions=abc", {"--set run.repetitions=abc: key 'run.repetitions': must be an integer"});
  refused("experiments.matmul.sizes=[0]", {"--set experiments.matmul.sizes=[0]: key 'experiments[0].sizes'"});
  refused("run.repetiton=2", {"--set run.repetiton=2: key 'run.repetiton': unknown key", "'repetitions'"});
  refused("experiments.matmull.sizes=[8]",
          {"--set experiments.matmull.sizes=[8]: the input has no experiment named"});
  refused("experiments[7].n=1", {"the input has 3 experiment entries"});
  refused("run.repetitions", {"expected PATH=VALUE"});
  refused("repetitions=2", {"is not run.KEY or experiments.NAME.KEY"});
  refused("run.sizes=[1", {"the value is not YAML"});
}

TEST(Config, RunNamesThatAreNotPlainDirectoryNamesAreRefused) {
  const std::string tail = "experiments: [{name: devices}]\n";
  for (const std::string& name :
       std::vector<std::string>{"\"x\\0y\"", "\"a\\tb\"", "\"a\\nb\"", "\".\"", "\"..\"", "a/b", "\"a\\\\b\"",
                                std::string(101, 'n')}) {
    expect_input_error("run: {name: " + name + "}\n" + tail, {"run.name", "directory name"});
  }
  EXPECT_EQ(testing::plan_yaml("run: {name: \"résumé λ-1\"}\n" + tail).run.name, "résumé λ-1");
  EXPECT_EQ(testing::plan_yaml("run: {name: " + std::string(100, 'n') + "}\n" + tail).run.name.size(), 100u);
}

TEST(Config, UnknownExperimentListsTheKnownOnes) {
  expect_input_error("experiments:\n  - name: warp_drive\n",
                     {":2:5:", "unknown experiment 'warp_drive'", "devices"});
}

TEST(Config, YamlSyntaxErrorsHavePositions) {
  expect_input_error("run:\n  repetitions: [1, 2\nexperiments: []\n", {"YAML syntax error"});
}

TEST(Config, ParsesByteCounts) {
  EXPECT_EQ(parse_bytes("4096"), 4096);
  EXPECT_EQ(parse_bytes("1KiB"), 1024);
  EXPECT_EQ(parse_bytes("64 KiB"), 65536);
  EXPECT_EQ(parse_bytes("1GiB"), 1073741824);
  EXPECT_EQ(parse_bytes("1.5MiB"), 1572864);
  EXPECT_EQ(parse_bytes("2MB"), 2000000);
  for (const char* bad :
       {"", "KiB", "-1KiB", "1 parsec", "1KiBx", "0", "2.5", "0.3KiB", "1e30GiB", "nan", "inf"}) {
    EXPECT_THROW(parse_bytes(bad), std::invalid_argument) << bad;
  }
}

TEST(Config, IntegersAcceptScientificNotationWhenIntegral) {
  const YAML::Node n = YAML::Load("{a: 1e8, b: 1.5, c: 12}");
  ConfigNode node(n, "in.yaml", "x");
  EXPECT_EQ(node.get<std::int64_t>("a", 0), 100000000);
  EXPECT_EQ(node.get<std::int64_t>("c", 0), 12);
  EXPECT_THROW(node.get<std::int64_t>("b", 0), InputError);
}

// The record inputs/README.md is checked against says what each read enforces, value given
// or not, and the reads enforce exactly that.
TEST(Config, BoundedReadsDeclareTheBoundsTheyEnforce) {
  const YAML::Node n = YAML::Load("{count: 7, sizes: [1, 2], cv: 0.5, mode: fast, given: 2}");
  ConfigNode node(n, "in.yaml", "x");
  EXPECT_EQ(node.get_int("count", 3, 1, 10), 7);
  EXPECT_EQ(node.get_int("absent", 3, 1, 10), 3);
  EXPECT_EQ(node.get_int_list("sizes", {4}, 1, 2), (std::vector<std::int64_t>{1, 2}));
  EXPECT_DOUBLE_EQ(node.get_number("cv", 0, 0, 1, false, true), 0.5);
  EXPECT_EQ(node.get_choice("mode", {"fast", "slow"}, "slow"), "fast");
  EXPECT_FALSE(node.get_optional_int("emulate", 0, 4).has_value());
  EXPECT_EQ(node.get_optional_int("given", 0, 4), std::optional<std::int64_t>(2));
  node.default_from("sizes", "the job size");
  const nlohmann::json& d = node.declared();
  EXPECT_EQ(d["count"],
            (nlohmann::json{{"type", "integer"}, {"default", 3}, {"minimum", 1}, {"maximum", 10}}));
  EXPECT_EQ(d["absent"]["default"], 3) << "declared although the input does not set it";
  EXPECT_EQ(d["sizes"]["items"], (nlohmann::json{{"type", "integer"}, {"minimum", 1}, {"maximum", 2}}));
  EXPECT_EQ(d["sizes"]["default_from"], "the job size");
  EXPECT_EQ(d["cv"]["exclusiveMaximum"], 1.0);
  EXPECT_FALSE(d["cv"].contains("maximum")) << "1 itself is refused";
  EXPECT_EQ(d["mode"]["enum"], (nlohmann::json{"fast", "slow"}));
  EXPECT_TRUE(d["emulate"]["default"].is_null());
  EXPECT_EQ(d["emulate"]["maximum"], 4);
  EXPECT_TRUE(d["given"]["default"].is_null()) << "unset, whatever the input gave";

  const YAML::Node bad = YAML::Load("{count: 11, sizes: [3], cv: 1, mode: other, emulate: 5, lr: 0}");
  ConfigNode refuse(bad, "in.yaml", "x");
  EXPECT_THROW(refuse.get_int("count", 3, 1, 10), InputError);
  EXPECT_THROW(refuse.get_int_list("sizes", {1}, 1, 2), InputError);
  EXPECT_THROW(refuse.get_number("cv", 0, 0, 1, false, true), InputError);
  EXPECT_THROW(refuse.get_choice("mode", {"fast", "slow"}, "slow"), InputError);
  EXPECT_THROW(refuse.get_optional_int("emulate", 0, 4), InputError);
  EXPECT_THROW(refuse.get_number("lr", 0.2, 0, 100, true), InputError) << "(0, 100] excludes 0";
}

}  // namespace
}  // namespace minigpu
