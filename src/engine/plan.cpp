// Loads an input file: YAML syntax, the run section, then each experiment's own keys.
#include "engine/plan.hpp"

#include "config/input_file.hpp"
#include "config/overrides.hpp"
#include "core/backend.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace minigpu {
namespace {

std::string file_stem(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  return base.substr(0, base.find_last_of('.'));
}

int positive_int(ConfigNode& node, const std::string& key, std::int64_t fallback, std::int64_t min) {
  return static_cast<int>(node.get_int(key, fallback, min, 1000000));
}

// A run name becomes a directory name: no separators, no control characters (a NUL would
// truncate the path the OS sees), not "." or "..", and short enough for any filesystem.
constexpr std::size_t kMaxRunNameBytes = 100;
std::string run_name_problem(const std::string& name) {
  if (name.empty()) return "must not be empty";
  if (name.size() > kMaxRunNameBytes) return "is longer than " + std::to_string(kMaxRunNameBytes) + " bytes";
  if (name == "." || name == "..") return "must not be '.' or '..'";
  for (unsigned char c : name) {
    if (c == '/' || c == '\\') return "must not contain a path separator ('/' or '\\')";
    if (c < 0x20 || c == 0x7f) return "must not contain control characters (NUL, tab, newline, ...)";
  }
  return "";
}

// How each case is repeated: in run: and, overriding it, in every experiment entry (whose
// defaults are then run:'s, `inherited`).
template <class Out, class Defaults>
void read_repetition_keys(ConfigNode& node, const Defaults& defaults, Out& out, bool inherited) {
  out.warmups = positive_int(node, "warmups", defaults.warmups, 0);
  out.repetitions = positive_int(node, "repetitions", defaults.repetitions, 1);
  out.target_cv = node.get_number("target_cv", defaults.target_cv, 0, 1, false, /*open_max=*/true);
  out.max_time_s = node.get_number("max_time_s", defaults.max_time_s, 0, 86400);
  out.case_timeout_s = node.get_number("case_timeout", defaults.case_timeout_s, 0, 7 * 86400);
  out.rounds = static_cast<int>(node.get_int("rounds", defaults.rounds, 1, kMaxRounds));
  if (inherited) {
    for (const char* key : {"warmups", "repetitions", "target_cv", "max_time_s", "case_timeout", "rounds"})
      node.default_from(key, std::string("run.") + key);
  }
}

RunSettings read_run_section(ConfigNode& run, const std::string& path) {
  RunSettings s;
  s.name = run.get<std::string>("name", file_stem(path));
  run.default_from("name", "the file name without .yaml");
  const std::string problem = run_name_problem(s.name);
  if (!problem.empty()) run.fail("name", "the run name becomes a directory name and " + problem);
  s.output_dir = run.get<std::string>("output_dir", s.output_dir);
  s.output_dir_source = run.locate("output_dir");
  if (s.output_dir.empty()) run.fail("output_dir", "must not be empty");
  read_repetition_keys(run, RunSettings{}, s, false);
  const std::string dtype = run.get_choice("dtype", {"float32", "float64"}, "float32");
  s.dtype = parse_dtype(dtype);
  if (const auto emulate = run.get_optional_int("emulate_gpus", 0, kMaxEmulatedGpus))
    s.emulate_gpus = static_cast<int>(*emulate);
  run.default_from("emulate_gpus", "MINIGPU_EMULATE_GPUS");
  s.require_gpu = run.get<bool>("require_gpu", false);
  run.reject_unknown();
  return s;
}

// A GPU input must never run on the CPU by accident: refuse host-only builds, GPU-less
// nodes and emulated GPUs (host memory), saying which of them it is.
void check_real_gpu(ConfigNode& run) {
  std::string why;
  if (!kHasGpuBackend) {
    why = "this build's Kokkos backends are " + io::bracketed(kokkos_backends()) +
          " (no GPU backend: build with scripts/gpu/build_cuda.sh) and the node shows " +
          std::to_string(visible_gpu_count()) + " GPUs to this build";
  } else if (visible_gpu_count() == 0) {
    why = "this node shows 0 GPUs to this process (Kokkos backends " + io::bracketed(kokkos_backends()) +
          "; check CUDA_VISIBLE_DEVICES and the job's GPU request)";
  }
  if (gpus_are_emulated()) {
    why += std::string(why.empty() ? "" : "; and ") + "the " + std::to_string(emulated_gpu_count()) +
           " emulated GPUs (MINIGPU_EMULATE_GPUS or run.emulate_gpus) are host memory";
  }
  if (!why.empty()) run.fail("require_gpu", "this input needs a real GPU, but " + why);
}

}  // namespace

namespace {

// The input file with --set applied, its top level checked, and its run section read (kept:
// a key of it may still be refused once the devices are settled). Filled in place: `run` points
// into `overridden`.
struct ReadInput {
  YAML::Node root;
  OverrideOrigins overridden;
  std::optional<ConfigNode> run;
  RunSettings settings;
  nlohmann::json run_resolved;
};

void read_input(const std::string& path, const PlanOptions& options, ReadInput& in) {
  in.root = load_input_file(path);
  if (!in.root.IsMap()) throw InputError(path + ": the input must be a mapping with 'run' and 'experiments'");
  in.overridden = apply_overrides(in.root, options.overrides);
  ConfigNode top(in.root, path, "", &in.overridden);
  // A misspelt top-level key is named (with the likely intent) before anything it hides.
  top.mark_read("run");
  top.mark_read("experiments");
  top.reject_unknown();
  YAML::Node run_node = in.root["run"] ? in.root["run"] : YAML::Node(YAML::NodeType::Map);
  ConfigNode& run = in.run.emplace(run_node, path, "run", &in.overridden);
  in.settings = read_run_section(run, path);
  if (options.output_dir) {
    in.settings.output_dir = *options.output_dir;
    in.settings.output_dir_source = "--output-dir";
    if (in.settings.output_dir.empty()) throw InputError("--output-dir: must not be empty");
  }
  in.run_resolved = run.resolved();
  in.run_resolved["output_dir"] = in.settings.output_dir;
}

}  // namespace

bool devices_as_settled(const RunSettings& settings) {
  return settings.emulate_gpus < 0 ||
         (gpus_are_emulated() ? emulated_gpu_count() : 0) == settings.emulate_gpus;
}

void settle_devices(const RunSettings& settings) {
  if (settings.emulate_gpus >= 0) set_emulated_gpus(settings.emulate_gpus);
}

RunPlan load_run_plan(const std::string& path, RunContext& run_ctx, const PlanOptions& options,
                      const DeviceSettler& settle) {
  ReadInput in;
  read_input(path, options, in);
  if (settle) settle(in.settings, run_ctx);
  if (!devices_as_settled(in.settings)) {
    throw std::logic_error("load_run_plan: run.emulate_gpus asks for " +
                           std::to_string(in.settings.emulate_gpus) +
                           " emulated GPUs and the caller's DeviceSettler did not settle them");
  }
  YAML::Node& root = in.root;
  const OverrideOrigins& overridden = in.overridden;
  ConfigNode top(root, path, "", &overridden);
  if (in.settings.require_gpu)
    check_real_gpu(*in.run);  // on the devices as settled: emulated GPUs are refused
  RunPlan plan;
  plan.input_file = path;
  plan.overrides = options.overrides;
  plan.run = in.settings;
  // The experiments configure with the input's default dtype; the caller's context is left as it was.
  RunContext ctx = run_ctx;
  ctx.default_dtype = plan.run.dtype;
  plan.resolved_input["run"] = in.run_resolved;

  if (!root["experiments"]) top.fail("experiments", "is required (a list of experiments to run)");
  const YAML::Node list = root["experiments"];
  if (!list.IsSequence() || list.size() == 0) top.fail("experiments", "must be a non-empty list");
  for (const auto& name : options.only) {
    if (!ExperimentRegistry::find(name)) {
      throw InputError("--only: unknown experiment '" + name +
                       "' (known: " + ExperimentRegistry::known_names() + ")");
    }
  }

  plan.resolved_input["experiments"] = nlohmann::json::array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    ConfigNode node(list[i], path, "experiments[" + std::to_string(i) + "]", &overridden);
    const std::string name = node.required<std::string>("name");
    const RegisteredExperiment* info = ExperimentRegistry::find(name);
    if (!info)
      node.fail("name",
                "unknown experiment '" + name + "' (known: " + ExperimentRegistry::known_names() + ")");
    PlannedExperiment planned;
    planned.name = name;
    read_repetition_keys(node, plan.run, planned, true);
    if (options.case_timeout_s > 0) planned.case_timeout_s = options.case_timeout_s;
    planned.experiment = info->make();
    planned.experiment->configure(node, ctx);
    node.reject_unknown();
    planned.cases = planned.experiment->cases();
    if (planned.cases.empty()) {
      node.fail("name", "'" + name + "' expands to no cases with these parameters (nothing would run)");
    }
    for (const auto& spec : planned.cases) {
      if (!spec.size_key.empty()) planned.key_locations[spec.size_key] = node.locate(spec.size_key);
    }
    plan.resolved_input["experiments"].push_back(node.resolved());
    const bool selected = options.only.empty() ||
                          std::find(options.only.begin(), options.only.end(), name) != options.only.end();
    if (selected) plan.experiments.push_back(std::move(planned));
  }
  if (plan.experiments.empty()) throw InputError(path + ": --only selected none of the input's experiments");
  return plan;
}

nlohmann::json declared_input_keys(const RunContext& ctx) {
  const std::string file = "input.yaml";
  ConfigNode run(YAML::Node(YAML::NodeType::Map), file, "run");
  read_run_section(run, file);
  YAML::Node entry(YAML::NodeType::Map);
  entry["name"] = "devices";
  ConfigNode common(entry, file, "experiments[0]");
  common.required<std::string>("name");
  PlannedExperiment planned;
  read_repetition_keys(common, RunSettings{}, planned, true);
  nlohmann::json keys = {{"run", run.declared()}, {"every_experiment", common.declared()}};
  keys["experiments"] = nlohmann::json::object();
  for (const auto& info : ExperimentRegistry::all()) {
    keys["every_experiment"]["name"]["enum"].push_back(info.name);
    ConfigNode own(YAML::Node(YAML::NodeType::Map), file, "experiments[0]");
    info.make()->configure(own, ctx);
    keys["experiments"][info.name] = own.declared();
  }
  return keys;
}

}  // namespace minigpu
