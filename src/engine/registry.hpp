// Experiments register themselves by name from their own file, with one line, and carry what
// the docs say about them: the chapter's question, the figure, every finding they may report.
#pragma once

#include "engine/experiment.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace minigpu {

/// One finding an experiment may report. `pattern` is its name with <placeholders> for the
/// parts a case sets ("peak_gbps_<group>"); the runner refuses a finding that matches none.
struct FindingInfo {
  std::string pattern;
  std::string unit;
  std::string definition;
};

/// What an experiment is, for people: `minigpu list`, README's table, docs/measuring.md and
/// the registry_coverage test all read it from here.
struct ExperimentDescription {
  std::string name;         ///< also its file, src/experiments/<name>.cpp, and inputs/<name>.yaml
  std::string description;  ///< one line, for `minigpu list`
  std::string question;     ///< the chapter's question it answers
  /// The PNG scripts/plot.py draws with scripts/plotlib/<name>.py ("" for none).
  std::string figure;
  std::vector<FindingInfo> findings;
  /// Its keys at the smallest sizes that still run every engine it has, on the cpu, as one YAML
  /// flow mapping's body ("n: 8, dtypes: [float32], device: cpu"; "" for none): what the tests
  /// run every registered experiment with (tests/mpi/test_regions.cpp), so none goes untried.
  std::string smallest_keys;

  /// The declaration `finding` (a reported name) matches, or nullptr.
  const FindingInfo* finding_for(const std::string& finding) const;
};

struct RegisteredExperiment : ExperimentDescription {
  std::function<std::unique_ptr<Experiment>()> make;
};

/// Name-ordered registry of every experiment linked into the program.
class ExperimentRegistry {
 public:
  static bool add(ExperimentDescription about, std::function<std::unique_ptr<Experiment>()> make);
  static const RegisteredExperiment* find(const std::string& name);
  static std::vector<RegisteredExperiment> all();
  /// "a, b, c": the known names, for error messages.
  static std::string known_names();
  /// Throws std::logic_error when `experiment` declares no finding `name` in `unit`: a finding
  /// the docs cannot explain is a bug of the experiment, caught by any run that reports it.
  static void check_declared(const std::string& experiment, const std::string& name, const std::string& unit);
  /// The registry as JSON (`minigpu list --json`), in name order.
  static nlohmann::json describe_all();

 private:
  static std::map<std::string, RegisteredExperiment>& table();
};

}  // namespace minigpu

/// Registers `Class` as the experiment the braced ExperimentDescription after it describes; place once at
/// the end of the experiment's file.
#define MINIGPU_REGISTER_EXPERIMENT(Class, ...)                                        \
  static const bool minigpu_registered_##Class =                                       \
      ::minigpu::ExperimentRegistry::add(::minigpu::ExperimentDescription __VA_ARGS__, \
                                         [] { return std::unique_ptr<::minigpu::Experiment>(new Class()); })
