// A ceiling table's JSON form: run.json's "ceilings", the cache file's body.
#include "io/ceiling_table.hpp"

namespace minigpu {

const std::string& CeilingTable::doubt_about(const Ceiling& c) const {
  static const std::string none;
  return c.on_host() ? doubt : none;
}

const Ceiling* CeilingTable::find(const std::string& name) const {
  for (const auto& c : ceilings) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const Ceiling* CeilingTable::find_for(const std::string& name, std::int64_t bytes) const {
  const Ceiling *fit = nullptr, *largest = nullptr;
  for (const auto& c : ceilings) {
    if (c.bytes <= 0 || (c.name != name && c.name.rfind(name + "@", 0) != 0)) continue;
    if (!largest || c.bytes > largest->bytes) largest = &c;
    if (c.bytes >= bytes && (!fit || c.bytes < fit->bytes)) fit = &c;
  }
  if (fit) return fit;
  return largest ? largest : find(name);
}

nlohmann::json CeilingTable::to_json() const {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& c : ceilings) {
    all.push_back(
        {{"name", c.name}, {"label", c.label}, {"value", c.value}, {"unit", c.unit}, {"how", c.how}});
    if (c.bytes > 0) all.back()["bytes"] = c.bytes;
  }
  return all;
}

CeilingTable CeilingTable::from_json(const nlohmann::json& j) {
  CeilingTable t;
  for (const auto& c : j) {
    t.ceilings.push_back({c.at("name").get<std::string>(), c.at("label").get<std::string>(),
                          c.at("value").get<double>(), c.at("unit").get<std::string>(),
                          c.at("how").get<std::string>(), c.value("bytes", std::int64_t{0})});
  }
  return t;
}

}  // namespace minigpu
