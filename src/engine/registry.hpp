// Experiments register themselves by name from their own file, with one line.
#pragma once

#include "engine/experiment.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace minigpu {

struct ExperimentInfo {
  std::string name;
  std::string description;
  /// The PNG scripts/plot.py draws for this experiment ("" for none): plot.py and its test
  /// take the name from here, through `minigpu list` and run.json.
  std::string figure;
  std::function<std::unique_ptr<Experiment>()> make;
};

/// Name-ordered registry of every experiment linked into the program.
class ExperimentRegistry {
 public:
  static bool add(const std::string& name, const std::string& description, const std::string& figure,
                  std::function<std::unique_ptr<Experiment>()> make);
  static const ExperimentInfo* find(const std::string& name);
  static std::vector<ExperimentInfo> all();
  /// "a, b, c": the known names, for error messages.
  static std::string known_names();

 private:
  static std::map<std::string, ExperimentInfo>& table();
};

}  // namespace minigpu

/// Registers `Class` as experiment `name` drawn in `figure` (a PNG name, or ""); place once at
/// the end of the experiment's file.
#define MINIGPU_REGISTER_EXPERIMENT(Class, name, description, figure)                \
  static const bool minigpu_registered_##Class = ::minigpu::ExperimentRegistry::add( \
      name, description, figure, [] { return std::unique_ptr<::minigpu::Experiment>(new Class()); })
