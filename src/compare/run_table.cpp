// Reading runs and references for `minigpu compare`: only the fields a comparison needs, each
// checked, so a hand-written reference with a mistake is refused with the entry and key.
#include "compare/run_table.hpp"

#include <nlohmann/json.hpp>
#include "core/errors.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace minigpu::compare {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;

// Throws "FILE: WHERE: key 'KEY' WHAT".
[[noreturn]] void refuse(const std::string& file, const std::string& where, const std::string& key,
                         const std::string& what) {
  throw InputError(file + ": " + where + ": key '" + key + "' " + what);
}

// j[key], refused as missing under the name `shown` (a dotted path for a nested key).
const json& member(const json& j, const std::string& file, const std::string& where, const std::string& key,
                   const std::string& shown = "") {
  if (!j.is_object() || !j.contains(key)) refuse(file, where, shown.empty() ? key : shown, "is missing");
  return j.at(key);
}

std::string text(const json& j, const std::string& file, const std::string& where, const std::string& key) {
  const json& v = member(j, file, where, key);
  if (!v.is_string() || v.get<std::string>().empty()) refuse(file, where, key, "must be a non-empty string");
  return v.get<std::string>();
}

// A [low, high] pair with 0 < low <= high (seconds), or null; `value` must lie inside it.
std::optional<std::pair<double, double>> interval(const json& j, const std::string& file,
                                                  const std::string& where, const std::string& key,
                                                  std::optional<double> value, bool positive,
                                                  const std::string& prefix = "") {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  const std::string shown = prefix + key;
  const json& v = j.at(key);
  const bool pair = v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number();
  if (!pair) refuse(file, where, shown, "must be [low, high] or null");
  const double low = v[0].get<double>(), high = v[1].get<double>();
  if (!(low <= high) || (positive && !(low > 0)) || !std::isfinite(high))
    refuse(file, where, shown, "must have " + std::string(positive ? "0 < " : "") + "low <= high");
  if (value && !(low <= *value && *value <= high)) refuse(file, where, shown, "must contain the value");
  return std::pair{low, high};
}

CaseTime case_time(const json& r, const std::string& file, const std::string& where) {
  CaseTime c;
  c.experiment = text(r, file, where, "experiment");
  c.label = text(r, file, where, "case");
  c.device = text(r, file, where, "device");
  c.dtype = text(r, file, where, "dtype");
  if (r.contains("params") && r.at("params").is_object()) {
    for (const auto& [k, v] : r.at("params").items())
      c.params[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  const json& seconds = member(r, file, where, "seconds");
  const json& median = member(seconds, file, where, "median", "seconds.median");
  if (!median.is_number() || !(median.get<double>() > 0) || !std::isfinite(median.get<double>()))
    refuse(file, where, "seconds.median", "must be a positive number");
  c.median_s = median.get<double>();
  c.ci95 = interval(seconds, file, where, "median_ci95", c.median_s, true, "seconds.");
  if (r.contains("repetitions") && r.at("repetitions").is_number_integer())
    c.repetitions = r.at("repetitions");
  if (r.contains("verified")) {
    if (!r.at("verified").is_boolean()) refuse(file, where, "verified", "must be true or false");
    c.verified = r.at("verified").get<bool>();
  }
  return c;
}

FindingValue finding_value(const json& f, const std::string& file, const std::string& where) {
  FindingValue out;
  out.experiment = text(f, file, where, "experiment");
  out.name = text(f, file, where, "name");
  out.unit = f.value("unit", std::string());
  const json& value = member(f, file, where, "value");
  if (!value.is_null() && !value.is_number()) refuse(file, where, "value", "must be a number or null");
  if (value.is_number()) out.value = value.get<double>();
  out.ci95 = interval(f, file, where, "ci95", out.value, false);
  if (f.contains("reliable") && f.at("reliable").is_boolean()) out.reliable = f.at("reliable");
  if (!out.reliable && f.contains("unreliable_because") && f.at("unreliable_because").is_string())
    out.unreliable_because = f.at("unreliable_because").get<std::string>();
  if (f.contains("note") && f.at("note").is_string()) out.note = f.at("note").get<std::string>();
  return out;
}

// "run quickstart (inputs/quickstart.yaml) on Intel Xeon ..., 2 ranks, 2026-11-24T01:02:03Z".
std::string run_description(const json& record) {
  std::ostringstream os;
  os << "run";
  if (record.contains("input_file") && record["input_file"].is_string())
    os << " of " << record["input_file"].get<std::string>();
  if (record.contains("host") && record["host"].contains("cpu"))
    os << " on " << record["host"]["cpu"].get<std::string>();
  if (record.contains("blas") && record["blas"].contains("core") && record["blas"]["core"].is_string())
    os << ", OpenBLAS core " << record["blas"]["core"].get<std::string>();
  if (record.contains("kokkos") && record["kokkos"].contains("version"))
    os << ", Kokkos " << record["kokkos"]["version"].get<std::string>();
  if (record.contains("mpi") && record["mpi"].contains("size"))
    os << ", " << record["mpi"]["size"] << " rank(s)";
  if (record.contains("started") && record["started"].is_string())
    os << ", " << record["started"].get<std::string>();
  return os.str();
}

std::string reference_description(const json& reference, const std::string& file) {
  // One key at a time, so a reference missing several is told about the first.
  std::vector<std::string> parts;
  for (const char* key : {"description", "hardware", "software", "measured", "source"})
    parts.push_back(text(reference, file, "reference", key));
  return parts[0] + " (" + parts[1] + "; " + parts[2] + "; measured " + parts[3] + ")";
}

// The setup beside the CPU that sets a case's speed, from run.json's blocks (a reference made by
// scripts/make_reference.py keeps them); each entry only where its keys are recorded.
std::map<std::string, std::string> setup_of(const json& record) {
  std::map<std::string, std::string> out;
  const auto string_at = [&record](const char* block, const char* key) -> std::string {
    if (!record.contains(block) || !record[block].is_object()) return "";
    const json& v = record[block].value(key, json());
    return v.is_string() ? v.get<std::string>() : v.is_number_integer() ? std::to_string(v.get<int>()) : "";
  };
  const std::string version = string_at("kokkos", "version"),
                    space = string_at("kokkos", "default_execution_space");
  if (!version.empty() && !space.empty()) out["Kokkos"] = version + " " + space;
  if (const std::string threads = string_at("threads", "kokkos_host"); !threads.empty())
    out["threads a rank"] = threads;
  if (const std::string core = string_at("blas", "core"); !core.empty()) out["OpenBLAS kernels"] = core;
  return out;
}

}  // namespace

RunTable load_run_table(const std::string& path) {
  std::error_code ec;
  const fs::path file = fs::is_directory(path, ec) ? fs::path(path) / "run.json" : fs::path(path);
  const std::string name = file.string();
  std::ifstream in(file);
  if (!in) throw InputError(name + ": cannot read it (a run directory, its run.json or a reference file)");
  json record;
  try {
    record = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(name + ": not JSON: " + e.what());
  }
  if (!record.is_object()) throw InputError(name + ": not a run record or reference (not a JSON object)");
  RunTable table;
  table.path = path;
  table.is_reference = record.contains("reference");
  table.description =
      table.is_reference ? reference_description(record["reference"], name) : run_description(record);
  if (record.contains("mpi") && record["mpi"].is_object() &&
      record["mpi"].value("size", json()).is_number_integer())
    table.ranks = record["mpi"]["size"].get<int>();
  if (record.contains("host") && record["host"].is_object() &&
      record["host"].value("cpu", json()).is_string())
    table.cpu = record["host"]["cpu"].get<std::string>();
  table.setup = setup_of(record);
  if (record.value("status", json()).is_string()) table.status = record["status"].get<std::string>();
  if (record.value("cases_planned", json()).is_number_integer())
    table.cases_planned = record["cases_planned"].get<int>();
  const json& results = member(record, name, "top level", "results");
  if (!results.is_array()) refuse(name, "top level", "results", "must be a list");
  for (std::size_t i = 0; i < results.size(); ++i)
    table.cases.push_back(case_time(results[i], name, "results[" + std::to_string(i) + "]"));
  if (record.contains("findings")) {
    const json& findings = record.at("findings");
    if (!findings.is_array()) refuse(name, "top level", "findings", "must be a list");
    for (std::size_t i = 0; i < findings.size(); ++i)
      table.findings.push_back(finding_value(findings[i], name, "findings[" + std::to_string(i) + "]"));
  }
  return table;
}

}  // namespace minigpu::compare
