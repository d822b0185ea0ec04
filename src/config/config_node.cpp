// Typed, position-aware reads of YAML values; conversion failures become InputError.
#include "config/config_node.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <type_traits>

namespace minigpu {
namespace {

std::string type_name(std::int64_t) { return "an integer"; }
std::string type_name(double) { return "a number"; }
std::string type_name(bool) { return "true or false"; }
std::string type_name(const std::string&) { return "a string"; }
// The same, in JSON Schema's words (for declared()).
const char* json_type(std::int64_t) { return "integer"; }
const char* json_type(double) { return "number"; }
const char* json_type(bool) { return "boolean"; }
const char* json_type(const std::string&) { return "string"; }

// Integers also accept "1e8" and 1.0e3 when the value is integral: sizes read naturally.
bool convert(const YAML::Node& n, std::int64_t& out) {
  if (!n.IsScalar()) return false;
  if (YAML::convert<std::int64_t>::decode(n, out)) return true;
  double d = 0;
  if (!YAML::convert<double>::decode(n, d) || !std::isfinite(d) || d != std::floor(d) ||
      std::abs(d) > 9.0e18) {
    return false;
  }
  out = static_cast<std::int64_t>(d);
  return true;
}
bool convert(const YAML::Node& n, double& out) {
  return n.IsScalar() && YAML::convert<double>::decode(n, out) && std::isfinite(out);
}
bool convert(const YAML::Node& n, bool& out) { return n.IsScalar() && YAML::convert<bool>::decode(n, out); }
bool convert(const YAML::Node& n, std::string& out) {
  if (!n.IsScalar()) return false;
  out = n.Scalar();
  return true;
}

// Edits (insertions, deletions, substitutions) that turn a into b.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// An integer literal too large for 64 bits (yaml-cpp only says it does not convert).
bool is_integer_literal(const YAML::Node& n) {
  if (!n.IsScalar() || n.Scalar().empty()) return false;
  const std::string& s = n.Scalar();
  const std::size_t start = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  return start < s.size() && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(start), s.end(),
                                         [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string shown(const std::string& value) {
  constexpr std::size_t kMaxShown = 80;
  if (value.size() <= kMaxShown) return value;
  return value.substr(0, kMaxShown - 3) + "... (" + std::to_string(value.size()) + " characters)";
}

ConfigNode::ConfigNode(const YAML::Node& node, std::string file, std::string path,
                       const std::map<std::string, std::string>* overrides)
    : node_(node), file_(std::move(file)), path_(std::move(path)), overrides_(overrides) {
  if (!node_.IsMap()) {
    throw InputError(where(node_.Mark()) + ": '" + path_ + "' must be a mapping of key: value");
  }
  // yaml-cpp keeps both entries of a repeated key and lookups see the first: refuse instead.
  std::map<std::string, YAML::Mark> first;
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    const auto [it, fresh] = first.emplace(key, kv.first.Mark());
    if (!fresh) {
      throw InputError(where(kv.first.Mark()) + ": key '" + (path_.empty() ? key : path_ + "." + key) +
                       "' appears twice in one mapping (first at line " +
                       std::to_string(it->second.line + 1) + "); say it once");
    }
  }
}

std::string ConfigNode::where(const YAML::Mark& mark) const {
  if (mark.is_null()) return file_;
  return file_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string ConfigNode::locate(const std::string& key) const {
  const std::string full = path_.empty() ? key : path_ + "." + key;
  if (overrides_) {
    const auto set = overrides_->find(full);
    if (set != overrides_->end()) return set->second + ": key '" + full + "'";
  }
  // Point at the key itself when it exists, else at the mapping that lacks it.
  YAML::Mark mark = node_.Mark();
  for (const auto& kv : node_) {
    if (kv.first.Scalar() == key) mark = kv.first.Mark();
  }
  return where(mark) + ": key '" + full + "'";
}

void ConfigNode::fail(const std::string& key, const std::string& message) const {
  throw InputError(locate(key) + ": " + message);
}

bool ConfigNode::has(const std::string& key) const { return static_cast<bool>(node_[key]); }

YAML::Node ConfigNode::value_of(const std::string& key) {
  read_.insert(key);
  return node_[key];
}

void ConfigNode::mark_read(const std::string& key) { read_.insert(key); }

void ConfigNode::declare(const std::string& key, const nlohmann::json& facts) {
  declared_[key].update(facts);
}

void ConfigNode::default_from(const std::string& key, const std::string& source) {
  declare(key, {{"default_from", source}});
}

template <class T>
T ConfigNode::required(const std::string& key) {
  T value{};
  declare(key, {{"type", json_type(value)}});
  if (!declared_[key].contains("default")) declare(key, {{"required", true}});
  if (!has(key)) fail(key, "is required");
  const YAML::Node n = value_of(key);
  if (!convert(n, value)) {
    if constexpr (std::is_same_v<T, std::int64_t>) {
      if (is_integer_literal(n)) {
        fail(key, "'" + shown(n.Scalar()) + "' is too large (max " +
                      std::to_string(std::numeric_limits<std::int64_t>::max()) + ")");
      }
    }
    fail(key, "must be " + type_name(value));
  }
  resolved_[key] = value;
  return value;
}

template <class T>
T ConfigNode::get(const std::string& key, const T& fallback) {
  declare(key, {{"type", json_type(fallback)}, {"default", fallback}});
  if (!has(key)) {
    read_.insert(key);
    resolved_[key] = fallback;
    return fallback;
  }
  return required<T>(key);
}

template <class T>
std::vector<T> ConfigNode::get_list(const std::string& key, const std::vector<T>& fallback) {
  declare(key, {{"type", "array"}, {"items", {{"type", json_type(T{})}}}, {"default", fallback}});
  std::vector<T> values;
  if (!has(key)) {
    read_.insert(key);
    values = fallback;
  } else {
    const YAML::Node n = value_of(key);
    if (n.IsScalar()) {
      values.emplace_back();
      if (!convert(n, values.back())) fail(key, "must be " + type_name(T{}) + " or a list of them");
    } else if (n.IsSequence() && n.size() > 0) {
      for (const auto& item : n) {
        values.emplace_back();
        if (!convert(item, values.back())) fail(key, "every item must be " + type_name(T{}));
      }
    } else {
      fail(key, "must be a non-empty list of " + type_name(T{}).substr(type_name(T{}).find(' ') + 1) + "s");
    }
  }
  resolved_[key] = values;
  return values;
}

std::vector<std::int64_t> ConfigNode::get_byte_list(const std::string& key,
                                                    const std::vector<std::int64_t>& fallback,
                                                    std::int64_t max) {
  nlohmann::json items = {{"type", {"integer", "string"}}, {"format", "bytes"}, {"minimum", 1}};
  if (max != std::numeric_limits<std::int64_t>::max()) items["maximum"] = max;
  declare(key, {{"type", "array"}, {"items", items}, {"default", fallback}});
  std::vector<std::int64_t> bytes;
  if (!has(key)) {
    read_.insert(key);
    bytes = fallback;
  } else {
    const YAML::Node n = value_of(key);
    std::vector<YAML::Node> items_given;
    if (n.IsSequence()) {
      for (const auto& item : n) items_given.push_back(item);
    }
    if (n.IsScalar()) items_given.push_back(n);
    if (items_given.empty()) fail(key, "must be a byte count or a non-empty list of them");
    for (const auto& item : items_given) {
      std::int64_t value = 0;
      if (!convert(item, value)) {
        try {
          value = item.IsScalar() ? parse_bytes(item.Scalar()) : -1;
        } catch (const std::invalid_argument&) {
          fail(key, "'" + shown(item.IsScalar() ? item.Scalar() : std::string("?")) +
                        "' is not a byte count (e.g. 4096, 64KiB, 1GiB)");
        }
      }
      if (value <= 0) fail(key, "byte counts must be positive");
      if (value > max)
        fail(key, "every byte count must be at most " + std::to_string(max) + " (got " +
                      std::to_string(value) + ")");
      bytes.push_back(value);
    }
  }
  resolved_[key] = bytes;
  return bytes;
}

void ConfigNode::reject_unknown() const {
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (read_.count(key)) continue;
    std::string known, closest;
    std::size_t best = key.size();
    for (const auto& k : read_) {
      known += (known.empty() ? "" : ", ") + k;
      const std::size_t d = edit_distance(key, k);
      if (d < best) best = d, closest = k;
    }
    // A slip of a few letters, not a different word.
    const bool near = !closest.empty() && best <= std::max<std::size_t>(2, closest.size() / 3);
    fail(key, "unknown key '" + shown(key) + "'" + (near ? "; did you mean '" + closest + "'?" : "") +
                  " (known keys: " + known + ")");
  }
}

std::int64_t parse_bytes(const std::string& text) {
  std::istringstream in(text);
  double number = 0;
  std::string unit;
  if (!(in >> number) || number <= 0) throw std::invalid_argument(text);
  in >> unit;
  static const std::pair<const char*, double> units[] = {
      {"", 1},     {"B", 1},    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
      {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
  for (const auto& [name, scale] : units) {
    if (unit != name || !in.eof()) continue;
    // A whole number of bytes that fits the type: "2.5" or "0.3KiB" is no byte count.
    const double bytes = number * scale;
    if (!(bytes < 9.2e18) || bytes != std::floor(bytes)) break;
    return static_cast<std::int64_t>(bytes);
  }
  throw std::invalid_argument(text);
}

template std::int64_t ConfigNode::required<std::int64_t>(const std::string&);
template double ConfigNode::required<double>(const std::string&);
template bool ConfigNode::required<bool>(const std::string&);
template std::string ConfigNode::required<std::string>(const std::string&);
template std::int64_t ConfigNode::get<std::int64_t>(const std::string&, const std::int64_t&);
template double ConfigNode::get<double>(const std::string&, const double&);
template bool ConfigNode::get<bool>(const std::string&, const bool&);
template std::string ConfigNode::get<std::string>(const std::string&, const std::string&);
template std::vector<std::int64_t> ConfigNode::get_list(const std::string&, const std::vector<std::int64_t>&);
template std::vector<double> ConfigNode::get_list(const std::string&, const std::vector<double>&);
template std::vector<std::string> ConfigNode::get_list(const std::string&, const std::vector<std::string>&);

}  // namespace minigpu
