// Validated access to one YAML mapping: every error names file, line, column and key, and
// every value read (defaults included) is recorded so the resolved input can be written back.
#pragma once

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace minigpu {

/// A YAML mapping at `path` (e.g. "experiments[2]") of input file `file`.
/// `value` as an error message shows it: cut to 80 characters, saying how long it was.
std::string shown(const std::string& value);

class ConfigNode {
 public:
  /// `overrides`, if given, maps full keys set on the command line to the override that set
  /// them: errors about those keys name the override instead of a file position.
  ConfigNode(const YAML::Node& node, std::string file, std::string path,
             const std::map<std::string, std::string>* overrides = nullptr);

  bool has(const std::string& key) const;
  /// Value of a key that must be present; T is std::int64_t, double, bool or std::string.
  template <class T>
  T required(const std::string& key);
  /// Value of `key`, or `fallback` when absent.
  template <class T>
  T get(const std::string& key, const T& fallback);
  /// An integer in [min, max] (max unbounded by default), or `fallback` when absent; out of
  /// range is an error naming the bounds and the value given.
  std::int64_t get_int(const std::string& key, std::int64_t fallback, std::int64_t min,
                       std::int64_t max = std::numeric_limits<std::int64_t>::max());
  /// The integer in [min, max] when `key` is present, nullopt (declared as null) when absent.
  std::optional<std::int64_t> get_optional_int(const std::string& key, std::int64_t min, std::int64_t max);
  /// A list of T (a scalar counts as a one-element list), or `fallback` when absent.
  template <class T>
  std::vector<T> get_list(const std::string& key, const std::vector<T>& fallback);
  /// Byte counts, each 1 … max: integers or strings such as "64KiB", "1GiB", "1MB".
  std::vector<std::int64_t> get_byte_list(const std::string& key, const std::vector<std::int64_t>& fallback,
                                          std::int64_t max = std::numeric_limits<std::int64_t>::max());
  /// A list of integers, each in [min, max], or `fallback` when absent.
  std::vector<std::int64_t> get_int_list(const std::string& key, const std::vector<std::int64_t>& fallback,
                                         std::int64_t min, std::int64_t max);
  /// A finite number in [min, max] (either end excluded when `open_min` / `open_max`), or
  /// `fallback` when absent; out of range is an error naming the interval and the value.
  double get_number(const std::string& key, double fallback, double min, double max, bool open_min = false,
                    bool open_max = false);
  /// One of `choices`, or `fallback` when absent.
  std::string get_choice(const std::string& key, const std::vector<std::string>& choices,
                         const std::string& fallback);
  /// A list whose items are each one of `choices` (repeats dropped, order kept).
  std::vector<std::string> get_choice_list(const std::string& key, const std::vector<std::string>& choices,
                                           const std::vector<std::string>& fallback);
  /// get_choice with the name mapped to its value: `names` lists {name, value} pairs.
  template <class Value>
  Value get_named(const std::string& key, const std::vector<std::pair<std::string, Value>>& names,
                  const std::string& fallback) {
    return value_named(names, get_choice(key, names_of(names), fallback));
  }
  /// get_choice_list with each name mapped to its value.
  template <class Value>
  std::vector<Value> get_named_list(const std::string& key,
                                    const std::vector<std::pair<std::string, Value>>& names,
                                    const std::vector<std::string>& fallback) {
    std::vector<Value> out;
    for (const auto& chosen : get_choice_list(key, names_of(names), fallback))
      out.push_back(value_named(names, chosen));
    return out;
  }
  /// Records that `key`'s default is not a constant but comes from `source` ("run.dtype",
  /// "the job size"): the default recorded for it is then only this run's.
  void default_from(const std::string& key, const std::string& source);

  /// Marks a key as read without reading it (handled by another layer).
  void mark_read(const std::string& key);
  /// Throws InputError for the first key that nothing read, listing the known ones.
  void reject_unknown() const;
  /// Throws InputError "file:line:col: key 'path.key': message" at the key's position.
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  /// "file:line:col: key 'path.key'", as fail() names a key (the mapping's position if absent).
  std::string locate(const std::string& key) const;
  /// Every value read, defaults filled in.
  const nlohmann::json& resolved() const { return resolved_; }
  /// What the reads declared of each key, in JSON Schema's words: "type" (with "items" for
  /// lists), "default" (or "required"), "minimum"/"maximum" (or "exclusiveMinimum"/…), "enum",
  /// and "default_from" where the default is not a constant. The one record of the input's
  /// keys: `minigpu list --keys` prints it, and inputs/README.md is checked against it.
  const nlohmann::json& declared() const { return declared_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }

 private:
  template <class Value>
  static std::vector<std::string> names_of(const std::vector<std::pair<std::string, Value>>& names) {
    std::vector<std::string> out;
    for (const auto& named : names) out.push_back(named.first);
    return out;
  }
  /// The value of a name get_choice accepted, so one of `names`.
  template <class Value>
  static const Value& value_named(const std::vector<std::pair<std::string, Value>>& names,
                                  const std::string& name) {
    return std::find_if(names.begin(), names.end(), [&](const auto& named) { return named.first == name; })
        ->second;
  }
  YAML::Node value_of(const std::string& key);
  /// Merges `facts` into declared_[key].
  void declare(const std::string& key, const nlohmann::json& facts);
  std::string where(const YAML::Mark& mark) const;

  YAML::Node node_;
  std::string file_;
  std::string path_;
  const std::map<std::string, std::string>* overrides_ = nullptr;
  std::set<std::string> read_;
  nlohmann::json resolved_ = nlohmann::json::object();
  nlohmann::json declared_ = nlohmann::json::object();
};

/// "1KiB" -> 1024 etc.; throws std::invalid_argument for anything else.
std::int64_t parse_bytes(const std::string& text);

}  // namespace minigpu
