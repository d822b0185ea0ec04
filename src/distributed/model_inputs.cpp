// Loading `minigpu model`'s inputs: the YAML profile through ConfigNode (positions in every
// error), run.json through nlohmann::json (key paths in every error).
#include "distributed/model_inputs.hpp"

#include "config/config_node.hpp"
#include "core/errors.hpp"

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace minigpu::perfmodel {
namespace {

// ---- the YAML profile ----

std::string joined_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// A misspelt key is named (with the likely intent) before the key it hides is missed.
void only_keys(ConfigNode& node, std::initializer_list<const char*> keys) {
  for (const char* k : keys) node.mark_read(k);
  node.reject_unknown();
}

// The mapping under `key`, as a ConfigNode of its own (so its errors carry the full key).
ConfigNode section(ConfigNode& parent, const YAML::Node& yaml, const std::string& key) {
  parent.mark_read(key);
  if (!yaml[key]) parent.fail(key, "is required");
  if (!yaml[key].IsMap()) parent.fail(key, "must be a mapping");
  return ConfigNode(yaml[key], parent.file(), joined_path(parent.path(), key));
}

// `key: {value: X, source: "…"}`: a figure nobody can trace is refused, bare numbers included.
Sourced sourced(ConfigNode& parent, const YAML::Node& yaml, const std::string& key, double min,
                bool open_min) {
  parent.mark_read(key);
  if (!yaml[key]) parent.fail(key, "is required");
  if (!yaml[key].IsMap()) {
    parent.fail(key, "has no source: write it as {value: X, source: \"where the figure comes from\"}");
  }
  ConfigNode v(yaml[key], parent.file(), joined_path(parent.path(), key));
  only_keys(v, {"value", "source"});
  Sourced out;
  if (!v.has("value")) v.fail("value", "is required");
  out.value = v.get_number("value", 0, min, 1e30, open_min);
  if (!v.has("source")) v.fail("source", "is required: every figure must say where it comes from");
  out.source = v.required<std::string>("source");
  if (out.source.find_first_not_of(" \t\r\n") == std::string::npos)
    v.fail("source", "must not be empty: say where the figure comes from");
  return out;
}

perfmodel::Link profile_link(ConfigNode& top, const YAML::Node& root, const std::string& key) {
  ConfigNode node = section(top, root, key);
  only_keys(node, {"alpha_s", "bytes_per_s"});
  const Sourced alpha = sourced(node, root[key], "alpha_s", 0, false);
  const Sourced rate = sourced(node, root[key], "bytes_per_s", 0, true);
  return {alpha.value, 1.0 / rate.value, "α " + alpha.source + "; bandwidth " + rate.source};
}

YAML::Node parse_yaml(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": is a directory, not a hardware profile");
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the hardware profile");
  try {
    return YAML::Load(in);
  } catch (const YAML::ParserException& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                     ": YAML syntax error: " + e.msg);
  }
}

// ---- run.json ----

const nlohmann::json& member(const nlohmann::json& obj, const std::string& key, const std::string& path,
                             const std::string& file) {
  const std::string full = joined_path(path, key);
  if (!obj.is_object() || !obj.contains(key))
    throw InputError(file + ": key '" + full + "': missing (a run of matmul_scaling writes it)");
  return obj.at(key);
}

double number(const nlohmann::json& obj, const std::string& key, const std::string& path,
              const std::string& file, bool zero_ok) {
  const auto& v = member(obj, key, path, file);
  const double x = v.is_number() ? v.get<double>() : NAN;
  if (!std::isfinite(x) || x < 0 || (!zero_ok && x == 0))
    throw InputError(file + ": key '" + joined_path(path, key) + "': must be a " +
                     (zero_ok ? "non-negative" : "positive") + " number");
  return x;
}

std::string text(const nlohmann::json& obj, const std::string& key, const std::string& path,
                 const std::string& file) {
  const auto& v = member(obj, key, path, file);
  if (!v.is_string() || v.get<std::string>().empty())
    throw InputError(file + ": key '" + joined_path(path, key) + "': must be a non-empty string");
  return v.get<std::string>();
}

perfmodel::Link json_link(const nlohmann::json& obj, const std::string& path, const std::string& file) {
  return {number(obj, "alpha_s", path, file, true), number(obj, "beta_s_per_byte", path, file, false),
          text(obj, "source", path, file)};
}

}  // namespace

ModelInputs load_hardware_profile(const std::string& path) {
  const YAML::Node root = parse_yaml(path);
  if (!root.IsMap())
    throw InputError(path + ": a hardware profile must be a mapping (inputs/hardware/README.md)");
  ConfigNode top(root, path, "");
  only_keys(top, {"name", "gpus_per_node", "gemm", "intra_node", "inter_node", "summa_panel_width"});
  ModelInputs in;
  in.origin = path;
  in.name = top.get<std::string>("name", "");
  in.gpus_per_node = sourced(top, root, "gpus_per_node", 1, false);
  if (in.gpus_per_node.value != std::floor(in.gpus_per_node.value) || in.gpus_per_node.value > 1e6)
    ConfigNode(root["gpus_per_node"], path, "gpus_per_node").fail("value", "must be a whole number of GPUs");
  ConfigNode gemm = section(top, root, "gemm");
  only_keys(gemm, {"float32", "float64"});
  for (const char* dtype : {"float32", "float64"}) {
    if (!root["gemm"][dtype]) continue;
    ConfigNode rate = section(gemm, root["gemm"], dtype);
    only_keys(rate, {"flops_per_s"});
    in.gemm_flops_per_s[dtype] = sourced(rate, root["gemm"][dtype], "flops_per_s", 0, true);
  }
  if (in.gemm_flops_per_s.empty()) gemm.fail("float32", "gemm needs a float32 or float64 rate");
  in.intra_node = profile_link(top, root, "intra_node");
  in.inter_node = profile_link(top, root, "inter_node");
  if (top.has("summa_panel_width")) {
    in.panel_width = sourced(top, root, "summa_panel_width", 1, false);
    if (in.panel_width->value != std::floor(in.panel_width->value))
      ConfigNode(root["summa_panel_width"], path, "summa_panel_width")
          .fail("value", "must be a whole number");
  }
  return in;
}

ModelInputs load_run_scaling_model(const std::string& run_dir) {
  const std::string file = (std::filesystem::path(run_dir) / "run.json").string();
  std::ifstream in_file(file);
  if (!in_file) throw InputError(file + ": cannot open (is " + run_dir + " a minigpu run directory?)");
  nlohmann::json record;
  try {
    in_file >> record;
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file + ": not valid JSON: " + e.what());
  }
  // A run stopped before its matmul_scaling finished has no model yet: say so, and how to finish it.
  const auto status = record.is_object() && record.contains("status") && record.at("status").is_string()
                          ? record.at("status").get<std::string>()
                          : std::string("complete");
  if (status != "complete" && record.is_object() && !record.contains("scaling_model"))
    throw InputError(file + ": key 'scaling_model': missing: the run's status is '" + status +
                     "', and matmul_scaling writes it once all its cases have run (finish the run with " +
                     "--resume " + run_dir + ", docs/running.md)");
  const auto& model = member(record, "scaling_model", "", file);
  const std::string at = "scaling_model";
  ModelInputs in;
  in.origin = file;
  in.gemm_key = at + ".gemm";
  const double gpn = number(model, "gpus_per_node", at, file, false);
  if (gpn != std::floor(gpn))
    throw InputError(file + ": key 'scaling_model.gpus_per_node': must be a whole number");
  in.gpus_per_node = {gpn, "this run's placement"};
  in.intra_node = json_link(member(model, "intra_node", at, file), at + ".intra_node", file);
  const auto& inter = member(model, "inter_node", at, file);
  in.inter_node_known = !inter.is_null();
  in.inter_node = in.inter_node_known ? json_link(inter, at + ".inter_node", file) : in.intra_node;
  const auto& gemm = member(model, "gemm", at, file);
  for (const char* dtype : {"float32", "float64"}) {
    if (!gemm.is_object() || !gemm.contains(dtype)) continue;
    const std::string p = at + ".gemm." + dtype;
    in.gemm_flops_per_s[dtype] = {number(gemm.at(dtype), "flops_per_s", p, file, false),
                                  text(gemm.at(dtype), "source", p, file)};
  }
  if (in.gemm_flops_per_s.empty())
    throw InputError(file + ": key 'scaling_model.gemm': needs a float32 or float64 rate");
  return in;
}

}  // namespace minigpu::perfmodel
