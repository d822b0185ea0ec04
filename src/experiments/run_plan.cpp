// Loads an input file: YAML syntax, the run section, then each experiment's own keys.
#include "experiments/run_plan.hpp"

#include "core/backend.hpp"

#include "core/errors.hpp"
#include "experiments/registry.hpp"
#include "io/format.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>

namespace minigpu {
namespace {

// The whole file as text, or InputError saying why not (a directory, unreadable, ...).
std::string read_input_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a directory, not an input file");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open input file: " + std::strerror(errno ? errno : ENOENT));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path + ": cannot read input file: " + std::strerror(errno ? errno : EIO));
  return text;
}

// yaml-cpp 0.7 can spend gigabytes on a few hundred bytes of invalid UTF-8 (found by
// scripts/fuzz.sh), so the text must be what an input is before yaml-cpp sees it: UTF-8
// without NUL bytes and of a sane size. Returns "" or what is wrong, with its position.
constexpr std::size_t kMaxInputBytes = std::size_t(1) << 20;
std::string text_problem(const std::string& text) {
  if (text.size() > kMaxInputBytes) return "is larger than 1 MiB: not an input file";
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::string at = ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
    if (c == 0) return at + "a NUL byte: not a text file";
    // The length of a UTF-8 sequence from its lead byte; continuation bytes are 10xxxxxx.
    const std::size_t length = c < 0x80           ? 1
                               : (c >> 5) == 0x6  ? 2
                               : (c >> 4) == 0xE  ? 3
                               : (c >> 3) == 0x1E ? 4
                                                  : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    if (!valid) return at + "bytes that are not UTF-8 text";
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += length;
  }
  return "";
}

// yaml-cpp 0.7 allocates without bound when a line of block content starts with ',' (",\nx"
// takes gigabytes; found by scripts/fuzz.sh). Inside [ ] or { } such a line is fine, so flow
// depth is followed, skipping quoted strings and comments. Returns "" or the problem.
std::string leading_comma_problem(const std::string& text) {
  int depth = 0;
  char quote = 0;
  bool line_start = true, comment = false;
  std::size_t line = 1, column = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      line_start = true;
      comment = false;
      continue;
    }
    if (comment) continue;
    if (quote) {
      if (c == '\\' && quote == '"')
        ++i, ++column;  // an escaped character
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (line_start && (c == ' ' || c == '\t' || c == '\r')) continue;
    if (line_start && c == ',' && depth == 0) {
      return ":" + std::to_string(line) + ":" + std::to_string(column) +
             ": a line may start with ',' only inside [ ] or { }";
    }
    const bool after_space = i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n';
    line_start = false;
    if (c == '#' && after_space)
      comment = true;
    else if (c == '\'' || c == '"')
      quote = c;
    else if (c == '[' || c == '{')
      ++depth;
    else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return "";
}

YAML::Node parse_file(const std::string& path) {
  const std::string text = read_input_file(path);
  std::string problem = text_problem(text);
  if (problem.empty()) problem = leading_comma_problem(text);
  if (!problem.empty()) throw InputError(path + (problem[0] == ':' ? "" : ": ") + problem);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                     ": YAML syntax error: " + e.msg);
  } catch (const std::bad_alloc&) {
    // Another input yaml-cpp cannot bound: say so rather than die.
    throw InputError(path + ": the YAML parser ran out of memory on this input (not a valid input file)");
  }
  if (documents.empty()) throw InputError(path + ": the input is empty");
  // yaml-cpp's Load would quietly keep only the first of several documents.
  if (documents.size() > 1) {
    const YAML::Mark m = documents[1].Mark();
    throw InputError(path + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) +
                     ": a second YAML document: an input file holds exactly one");
  }
  return documents.front();
}

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

RunSettings read_run_section(ConfigNode& run, const std::string& path) {
  RunSettings s;
  s.name = run.get<std::string>("name", file_stem(path));
  const std::string problem = run_name_problem(s.name);
  if (!problem.empty()) run.fail("name", "the run name becomes a directory name and " + problem);
  s.output_dir = run.get<std::string>("output_dir", s.output_dir);
  s.output_dir_source = run.locate("output_dir");
  if (s.output_dir.empty()) run.fail("output_dir", "must not be empty");
  s.warmups = positive_int(run, "warmups", s.warmups, 0);
  s.repetitions = positive_int(run, "repetitions", s.repetitions, 1);
  const std::string dtype = run.get_choice("dtype", {"float32", "float64"}, "float32");
  s.dtype = parse_dtype(dtype);
  if (run.has("emulate_gpus")) s.emulate_gpus = positive_int(run, "emulate_gpus", 0, 0);
  run.mark_read("emulate_gpus");
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
          " (no GPU backend: build with scripts/build_cuda.sh) and the node shows " +
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

RunPlan load_run_plan(const std::string& path, RunContext& ctx, const PlanOptions& options) {
  const YAML::Node root = parse_file(path);
  RunPlan plan;
  plan.input_file = path;
  if (!root.IsMap()) throw InputError(path + ": the input must be a mapping with 'run' and 'experiments'");
  ConfigNode top(root, path, "");
  // A misspelt top-level key is named (with the likely intent) before anything it hides.
  top.mark_read("run");
  top.mark_read("experiments");
  top.reject_unknown();
  YAML::Node run_node = root["run"] ? root["run"] : YAML::Node(YAML::NodeType::Map);
  ConfigNode run(run_node, path, "run");
  plan.run = read_run_section(run, path);
  if (options.output_dir) {
    plan.run.output_dir = *options.output_dir;
    plan.run.output_dir_source = "--output-dir";
    if (plan.run.output_dir.empty()) throw InputError("--output-dir: must not be empty");
  }
  if (plan.run.emulate_gpus >= 0) set_emulated_gpus(plan.run.emulate_gpus);
  if (plan.run.require_gpu) check_real_gpu(run);
  ctx.default_dtype = plan.run.dtype;
  plan.resolved_input["run"] = run.resolved();
  plan.resolved_input["run"]["output_dir"] = plan.run.output_dir;

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
    ConfigNode node(list[i], path, "experiments[" + std::to_string(i) + "]");
    const std::string name = node.required<std::string>("name");
    const ExperimentInfo* info = ExperimentRegistry::find(name);
    if (!info)
      node.fail("name",
                "unknown experiment '" + name + "' (known: " + ExperimentRegistry::known_names() + ")");
    PlannedExperiment planned;
    planned.name = name;
    planned.warmups = positive_int(node, "warmups", plan.run.warmups, 0);
    planned.repetitions = positive_int(node, "repetitions", plan.run.repetitions, 1);
    planned.experiment = info->make();
    planned.experiment->configure(node, ctx);
    node.reject_unknown();
    planned.cases = planned.experiment->cases();
    if (planned.cases.empty()) {
      node.fail("name", "'" + name + "' expands to no cases with these parameters (nothing would run)");
    }
    plan.resolved_input["experiments"].push_back(node.resolved());
    const bool selected = options.only.empty() ||
                          std::find(options.only.begin(), options.only.end(), name) != options.only.end();
    if (selected) plan.experiments.push_back(std::move(planned));
  }
  if (plan.experiments.empty()) throw InputError(path + ": --only selected none of the input's experiments");
  return plan;
}

}  // namespace minigpu
