// Loads an input file: YAML syntax, the run section, then each experiment's own keys.
#include "experiments/run_plan.hpp"

#include "config/overrides.hpp"
#include "core/backend.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "experiments/registry.hpp"
#include "io/format.hpp"

#include <yaml-cpp/depthguard.h>

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

// yaml-cpp 0.7 allocates without bound on a stray ',' at a document's root level (",\nx",
// "&a,n", "\"a\",n" or "[a],n" take gigabytes; found by scripts/fuzz.sh), while inside a
// block mapping it reports an error. So every document must be a block mapping: its first line
// a key, no later line indented less than that key, and no line opening with ','. Flow depth,
// quotes and comments are followed so that [ ], { } and strings may span lines. Returns "" or
// the problem with its position.
bool is_key_line(const std::string& row, std::size_t first) {
  std::size_t colon = std::string::npos;
  if (row[first] == '"' || row[first] == '\'') {
    const std::size_t close = row.find(row[first], first + 1);
    if (close != std::string::npos && close + 1 < row.size() && row[close + 1] == ':') colon = close + 1;
  } else if (std::string("-?:,[]{}#&*!|>%@`").find(row[first]) == std::string::npos) {
    colon = row.find(':', first);
  }
  return colon != std::string::npos &&
         (colon + 1 == row.size() || row[colon + 1] == ' ' || row[colon + 1] == '\r');
}

std::string root_structure_problem(const std::string& text) {
  int depth = 0;
  char quote = 0;
  bool need_key = true;
  std::size_t root_indent = 0, line = 0;
  const auto at = [&](std::size_t column, const std::string& what) {
    return ":" + std::to_string(line) + ":" + std::to_string(column + 1) + ": " + what;
  };
  for (std::size_t begin = 0; begin <= text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string row = text.substr(begin, end - begin);
    begin = end + 1;
    ++line;
    const std::size_t first = row.find_first_not_of(" \t\r");
    if (!quote && depth == 0 && first != std::string::npos && row[first] != '#') {
      if (row.rfind("---", 0) == 0 || row.rfind("...", 0) == 0) {
        const std::size_t rest = row.find_first_not_of(" \t\r", 3);
        if (rest != std::string::npos && row[rest] != '#')
          return at(rest, "content on a document marker line");
        need_key = true;
        continue;
      }
      if (row[first] == '%') continue;  // a directive
      if (row[first] == ',') return at(first, "a line may start with ',' only inside [ ] or { }");
      if (need_key) {
        if (!is_key_line(row, first))
          return at(first, "an input is a mapping: its first line must be a key such as 'run:'");
        need_key = false;
        root_indent = first;
      } else if (first < root_indent) {
        return at(first, "indented less than the document's first key");
      }
    }
    char before = 0;  // the last non-blank character of the row so far
    for (std::size_t i = 0; i < row.size(); ++i) {
      const char c = row[i];
      if (quote) {
        if (c == '\\' && quote == '"') {
          ++i;  // an escaped character
        } else if (c == quote) {
          quote = 0;
        }
        before = c;
        continue;
      }
      if (c == '#' && (i == 0 || row[i - 1] == ' ' || row[i - 1] == '\t')) break;  // a comment
      // Quotes and brackets are indicators only where a value starts; inside a plain scalar
      // ("a[1", "it's") they are text. Inside [ ] or { } every bracket is an indicator.
      const bool after_indicator = std::string(":-?").find(before) != std::string::npos && i > 0 &&
                                   (row[i - 1] == ' ' || row[i - 1] == '\t');
      const bool value_start = depth > 0 || before == 0 || after_indicator;
      if ((c == '\'' || c == '"') && value_start) {
        quote = c;
      } else if ((c == '[' || c == '{') && value_start) {
        ++depth;
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
      }
      if (c != ' ' && c != '\t' && c != '\r') before = c;
    }
  }
  return "";
}

YAML::Node parse_file(const std::string& path) {
  std::string text = read_input_file(path);
  // A UTF-8 byte-order mark (some Windows editors write one) is not part of the first key.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  std::string problem = text_problem(text);
  if (problem.empty()) problem = root_structure_problem(text);
  if (!problem.empty()) throw InputError(path + (problem[0] == ':' ? "" : ": ") + problem);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp words its depth guard "bad file".
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                     ": nested too deeply for the YAML parser: not an input file");
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

// How each case is repeated: in run: and, overriding it, in every experiment entry (whose
// defaults are then run:'s, `inherited`).
template <class Out, class Defaults>
void read_repetition_keys(ConfigNode& node, const Defaults& defaults, Out& out, bool inherited) {
  out.warmups = positive_int(node, "warmups", defaults.warmups, 0);
  out.repetitions = positive_int(node, "repetitions", defaults.repetitions, 1);
  out.target_cv = node.get_number("target_cv", defaults.target_cv, 0, 1, false, /*open_max=*/true);
  out.max_time_s = node.get_number("max_time_s", defaults.max_time_s, 0, 86400);
  if (inherited) {
    for (const char* key : {"warmups", "repetitions", "target_cv", "max_time_s"})
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
  YAML::Node root = parse_file(path);
  RunPlan plan;
  plan.input_file = path;
  if (!root.IsMap()) throw InputError(path + ": the input must be a mapping with 'run' and 'experiments'");
  const OverrideOrigins overridden = apply_overrides(root, options.overrides);
  plan.overrides = options.overrides;
  ConfigNode top(root, path, "", &overridden);
  // A misspelt top-level key is named (with the likely intent) before anything it hides.
  top.mark_read("run");
  top.mark_read("experiments");
  top.reject_unknown();
  YAML::Node run_node = root["run"] ? root["run"] : YAML::Node(YAML::NodeType::Map);
  ConfigNode run(run_node, path, "run", &overridden);
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
    ConfigNode node(list[i], path, "experiments[" + std::to_string(i) + "]", &overridden);
    const std::string name = node.required<std::string>("name");
    const ExperimentInfo* info = ExperimentRegistry::find(name);
    if (!info)
      node.fail("name",
                "unknown experiment '" + name + "' (known: " + ExperimentRegistry::known_names() + ")");
    PlannedExperiment planned;
    planned.name = name;
    read_repetition_keys(node, plan.run, planned, true);
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
