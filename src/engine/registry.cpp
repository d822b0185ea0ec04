// The experiment table; filled by static registration before main runs.
#include "engine/registry.hpp"

#include <regex>
#include <set>
#include <stdexcept>

namespace minigpu {
namespace {

// "peak_gbps_<group>" -> ^peak_gbps_[A-Za-z0-9_.]+$ : a placeholder stands for one or more
// name characters, everything else is literal.
std::regex pattern_regex(const std::string& pattern) {
  static const std::regex placeholder("<[a-z_]+>");
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  std::string out = "^";
  auto last = pattern.cbegin();
  for (std::sregex_iterator it(pattern.begin(), pattern.end(), placeholder), end; it != end; ++it) {
    out += std::regex_replace(std::string(last, pattern.cbegin() + it->position()), special, R"(\$&)");
    out += "[A-Za-z0-9_.]+";
    last = pattern.cbegin() + it->position() + it->length();
  }
  out += std::regex_replace(std::string(last, pattern.cend()), special, R"(\$&)") + "$";
  return std::regex(out);
}

// A registration the docs could not use is refused as the program starts.
void check_about(const ExperimentDescription& about) {
  const auto refuse = [&](const std::string& why) {
    throw std::logic_error("experiment '" + about.name + "' registered " + why);
  };
  if (about.name.empty() || about.description.empty() || about.question.empty())
    refuse("without a name, description or question");
  std::set<std::string> patterns;
  for (const auto& f : about.findings) {
    if (f.pattern.empty() || f.unit.empty() || f.definition.empty())
      refuse("a finding without a pattern, unit or definition");
    if (!patterns.insert(f.pattern).second) refuse("finding '" + f.pattern + "' twice");
  }
}

}  // namespace

const FindingInfo* ExperimentDescription::finding_for(const std::string& finding) const {
  for (const auto& f : findings) {
    if (std::regex_match(finding, pattern_regex(f.pattern))) return &f;
  }
  return nullptr;
}

std::map<std::string, RegisteredExperiment>& ExperimentRegistry::table() {
  static std::map<std::string, RegisteredExperiment> experiments;
  return experiments;
}

bool ExperimentRegistry::add(ExperimentDescription about, std::function<std::unique_ptr<Experiment>()> make) {
  check_about(about);
  const std::string name = about.name;
  if (!table().emplace(name, RegisteredExperiment{std::move(about), std::move(make)}).second) {
    throw std::logic_error("experiment '" + name + "' registered twice");
  }
  return true;
}

const RegisteredExperiment* ExperimentRegistry::find(const std::string& name) {
  const auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<RegisteredExperiment> ExperimentRegistry::all() {
  std::vector<RegisteredExperiment> infos;
  for (const auto& [name, info] : table()) infos.push_back(info);
  return infos;
}

std::string ExperimentRegistry::known_names() {
  std::string names;
  for (const auto& [name, info] : table()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

void ExperimentRegistry::check_declared(const std::string& experiment, const std::string& name,
                                        const std::string& unit) {
  const RegisteredExperiment* info = find(experiment);
  const FindingInfo* declared = info ? info->finding_for(name) : nullptr;
  if (declared == nullptr || declared->unit != unit) {
    throw std::logic_error("experiment '" + experiment + "' reported finding '" + name + "' in '" + unit +
                           "', which its registration does not declare" +
                           (declared ? " (declared in '" + declared->unit + "')" : ""));
  }
}

nlohmann::json ExperimentRegistry::describe_all() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, info] : table()) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : info.findings)
      findings.push_back({{"pattern", f.pattern}, {"unit", f.unit}, {"definition", f.definition}});
    out.push_back({{"name", name},
                   {"description", info.description},
                   {"question", info.question},
                   {"figure", info.figure.empty() ? nlohmann::json(nullptr) : nlohmann::json(info.figure)},
                   {"findings", findings},
                   {"smallest_keys", info.smallest_keys}});
  }
  return out;
}

}  // namespace minigpu
