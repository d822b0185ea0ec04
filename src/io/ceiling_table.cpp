// A ceiling table's JSON form: run.json's "ceilings", the cache file's body.
#include "io/ceiling_table.hpp"

namespace minigpu {

const Ceiling* CeilingTable::find(const std::string& name) const {
  for (const auto& c : ceilings) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

nlohmann::json CeilingTable::to_json() const {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& c : ceilings) {
    all.push_back(
        {{"name", c.name}, {"label", c.label}, {"value", c.value}, {"unit", c.unit}, {"how", c.how}});
  }
  return all;
}

CeilingTable CeilingTable::from_json(const nlohmann::json& j) {
  CeilingTable t;
  for (const auto& c : j) {
    t.ceilings.push_back({c.at("name").get<std::string>(), c.at("label").get<std::string>(),
                          c.at("value").get<double>(), c.at("unit").get<std::string>(),
                          c.at("how").get<std::string>()});
  }
  return t;
}

}  // namespace minigpu
