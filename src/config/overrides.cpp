// Command-line overrides of input keys.
#include "config/overrides.hpp"

#include "config/config_node.hpp"
#include "core/errors.hpp"

#include <cctype>
#include <cstddef>

namespace minigpu {
namespace {

constexpr std::size_t kMaxOverrideBytes = 65536;

bool is_key(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

// The experiment entries `selector` picks: "[I]", ".NAME" or ".*" after "experiments".
std::vector<std::size_t> select_entries(const YAML::Node& list, const std::string& selector,
                                        const std::string& origin) {
  std::vector<std::size_t> picked;
  if (!list || !list.IsSequence())
    throw InputError(origin + ": the input has no 'experiments' list to change");
  if (selector.size() > 2 && selector.front() == '[' && selector.back() == ']') {
    const std::string digits = selector.substr(1, selector.size() - 2);
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) {
      throw InputError(origin + ": '" + selector + "' is not an entry index such as [0]");
    }
    const std::size_t index = std::stoul(digits);
    if (index >= list.size()) {
      throw InputError(origin + ": the input has " + std::to_string(list.size()) + " experiment entries");
    }
    return {index};
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node name = list[i].IsMap() ? list[i]["name"] : YAML::Node();
    if (selector == "*" || (name && name.IsScalar() && name.Scalar() == selector)) picked.push_back(i);
  }
  if (picked.empty())
    throw InputError(origin + ": the input has no experiment named '" + shown(selector) + "'");
  return picked;
}

}  // namespace

OverrideOrigins apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides) {
  OverrideOrigins origins;
  for (const auto& text : overrides) {
    const std::string origin = "--set " + shown(text);
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq + 1 == text.size()) {
      throw InputError(origin + ": expected PATH=VALUE, e.g. run.repetitions=5");
    }
    if (text.size() > kMaxOverrideBytes) throw InputError(origin + ": longer than 64 KiB");
    const std::string path = text.substr(0, eq);
    YAML::Node value;
    try {
      value = YAML::Load(text.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      throw InputError(origin + ": the value is not YAML: " + e.msg);
    }
    const std::size_t last_dot = path.rfind('.');
    const std::string key = last_dot == std::string::npos ? "" : path.substr(last_dot + 1);
    const std::string owner = last_dot == std::string::npos ? path : path.substr(0, last_dot);
    if (!is_key(key)) {
      throw InputError(origin + ": '" + shown(path) + "' is not run.KEY or experiments.NAME.KEY");
    }
    if (owner == "run") {
      if (!root["run"]) root["run"] = YAML::Node(YAML::NodeType::Map);
      if (!root["run"].IsMap()) throw InputError(origin + ": the input's 'run' is not a mapping");
      root["run"][key] = value;
      origins["run." + key] = origin;
      continue;
    }
    const std::string prefix = "experiments";
    if (owner.rfind(prefix, 0) != 0 || owner.size() <= prefix.size()) {
      throw InputError(origin + ": '" + shown(path) + "' is not run.KEY or experiments.NAME.KEY");
    }
    std::string selector = owner.substr(prefix.size());
    if (selector.front() != '.' && selector.front() != '[') {
      throw InputError(origin + ": '" + shown(path) + "' is not run.KEY or experiments.NAME.KEY");
    }
    if (selector.front() == '.') selector.erase(0, 1);
    YAML::Node list = root["experiments"];
    for (std::size_t i : select_entries(list, selector, origin)) {
      YAML::Node entry = list[i];
      if (!entry.IsMap()) continue;  // reported by validation, at its position in the file
      entry[key] = value;
      origins["experiments[" + std::to_string(i) + "]." + key] = origin;
    }
  }
  return origins;
}

}  // namespace minigpu
