// The experiment table; filled by static registration before main runs.
#include "engine/registry.hpp"

#include <stdexcept>

namespace minigpu {

std::map<std::string, ExperimentInfo>& ExperimentRegistry::table() {
  static std::map<std::string, ExperimentInfo> experiments;
  return experiments;
}

bool ExperimentRegistry::add(const std::string& name, const std::string& description,
                             const std::string& figure, std::function<std::unique_ptr<Experiment>()> make) {
  if (!table().emplace(name, ExperimentInfo{name, description, figure, std::move(make)}).second) {
    throw std::logic_error("experiment '" + name + "' registered twice");
  }
  return true;
}

const ExperimentInfo* ExperimentRegistry::find(const std::string& name) {
  const auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<ExperimentInfo> ExperimentRegistry::all() {
  std::vector<ExperimentInfo> infos;
  for (const auto& [name, info] : table()) infos.push_back(info);
  return infos;
}

std::string ExperimentRegistry::known_names() {
  std::string names;
  for (const auto& [name, info] : table()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

}  // namespace minigpu
