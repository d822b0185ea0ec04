// Reads with bounds: ranges, bounded lists and named choices. Each declares its bounds as it
// checks them, so the record of the input's keys (declared()) and the checks cannot drift.
#include "config/config_node.hpp"

#include <algorithm>
#include <sstream>

namespace minigpu {
namespace {

constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max();

// "between 1 and 100" or "at least 1".
std::string int_range(std::int64_t min, std::int64_t max) {
  return max == kUnbounded ? "at least " + std::to_string(min)
                           : "between " + std::to_string(min) + " and " + std::to_string(max);
}

nlohmann::json int_bounds(std::int64_t min, std::int64_t max) {
  nlohmann::json bounds = {{"minimum", min}};
  if (max != kUnbounded) bounds["maximum"] = max;
  return bounds;
}

// Shortest decimal that reads back as `x` (0.2, 1e+09), for messages.
std::string number_text(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

std::string choice_list(const std::vector<std::string>& choices) {
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  return list;
}

}  // namespace

std::int64_t ConfigNode::get_int(const std::string& key, std::int64_t fallback, std::int64_t min,
                                 std::int64_t max) {
  const std::int64_t value = get<std::int64_t>(key, fallback);
  declare(key, int_bounds(min, max));
  if (value < min || value > max) {
    fail(key, "must be " + int_range(min, max) + " (got " + std::to_string(value) + ")");
  }
  return value;
}

std::optional<std::int64_t> ConfigNode::get_optional_int(const std::string& key, std::int64_t min,
                                                         std::int64_t max) {
  std::optional<std::int64_t> value;
  if (has(key)) {
    value = get_int(key, min, min, max);
  } else {
    mark_read(key);
    declare(key, {{"type", "integer"}});
    declare(key, int_bounds(min, max));
  }
  declare(key, {{"default", nullptr}});  // absent means "unset", not `min`
  return value;
}

std::vector<std::int64_t> ConfigNode::get_int_list(const std::string& key,
                                                   const std::vector<std::int64_t>& fallback,
                                                   std::int64_t min, std::int64_t max) {
  const auto values = get_list<std::int64_t>(key, fallback);
  declared_[key]["items"].update(int_bounds(min, max));
  for (const std::int64_t v : values) {
    if (v < min || v > max)
      fail(key, "every item must be " + int_range(min, max) + " (got " + std::to_string(v) + ")");
  }
  return values;
}

double ConfigNode::get_number(const std::string& key, double fallback, double min, double max, bool open_min,
                              bool open_max) {
  const double value = get<double>(key, fallback);
  declare(key, {{open_min ? "exclusiveMinimum" : "minimum", min},
                {open_max ? "exclusiveMaximum" : "maximum", max}});
  const bool above = open_min ? value > min : value >= min;
  const bool below = open_max ? value < max : value <= max;
  if (!above || !below) {
    fail(key, std::string("must be in ") + (open_min ? "(" : "[") + number_text(min) + ", " +
                  number_text(max) + (open_max ? ")" : "]") + " (got " + number_text(value) + ")");
  }
  return value;
}

std::string ConfigNode::get_choice(const std::string& key, const std::vector<std::string>& choices,
                                   const std::string& fallback) {
  const std::string value = get<std::string>(key, fallback);
  declare(key, {{"enum", choices}});
  if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
    fail(key, "'" + shown(value) + "' is not one of: " + choice_list(choices));
  }
  return value;
}

std::vector<std::string> ConfigNode::get_choice_list(const std::string& key,
                                                     const std::vector<std::string>& choices,
                                                     const std::vector<std::string>& fallback) {
  std::vector<std::string> out;
  const auto values = get_list<std::string>(key, fallback);
  declared_[key]["items"]["enum"] = choices;
  for (const auto& value : values) {
    if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
      fail(key, "'" + shown(value) + "' is not one of: " + choice_list(choices));
    }
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
  return out;
}

}  // namespace minigpu
