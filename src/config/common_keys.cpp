// Shared experiment keys, validated with positions like every other key.
#include "config/common_keys.hpp"

#include "core/errors.hpp"

#include <algorithm>

namespace minigpu {

Device read_device(ConfigNode& node, const std::string& key) {
  const std::string text = node.get<std::string>(key, "auto");
  if (text == "auto") return try_gpu();
  try {
    const Device d = parse_device(text);
    require_available(d);
    return d;
  } catch (const std::exception& e) {
    node.fail(key, e.what());
  }
}

std::vector<Device> read_devices(ConfigNode& node, const std::vector<std::string>& fallback,
                                 const std::string& key) {
  std::vector<Device> out;
  for (const auto& name : node.get_choice_list(key, {"cpu", "gpu"}, fallback)) {
    // `gpu` falls back to the cpu, which may already be listed.
    const Device d = name == "gpu" ? try_gpu() : cpu();
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
  return out;
}

std::vector<std::int64_t> read_sizes(ConfigNode& node, const std::string& key,
                                     const std::vector<std::int64_t>& fallback, std::int64_t min,
                                     std::int64_t max) {
  std::vector<std::int64_t> out;
  for (std::int64_t n : node.get_int_list(key, fallback, min, max)) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

GemmChoice read_gemm_kernel(ConfigNode& node, const std::string& vendor_refusal, const std::string& key) {
  const GemmChoice choice = node.get_named<GemmChoice>(
      key, {{"auto", GemmChoice::automatic}, {"vendor", GemmChoice::vendor}, {"native", GemmChoice::native}},
      "auto");
  if (choice == GemmChoice::vendor && !vendor_refusal.empty()) node.fail(key, vendor_refusal);
  return choice;
}

std::vector<DType> read_dtypes(ConfigNode& node, DType fallback, const std::string& key,
                               Precisions precisions) {
  std::vector<std::string> choices = {"float32", "float64"};
  if (precisions == Precisions::low_too) choices.insert(choices.end(), {"bfloat16", "float16"});
  std::vector<std::string> names;
  try {
    names = node.get_choice_list(key, choices, {to_string(fallback)});
  } catch (const InputError& e) {
    // Where 16-bit types are not choices, a refused 'bfloat16' or 'float16' ("float16" matches
    // both) gets the reason; where they are (matmul), the error is about another name.
    const std::string what = e.what();
    if (precisions != Precisions::full || what.find("float16") == std::string::npos) throw;
    throw InputError(
        what + " (bfloat16 and float16 are measured by the matmul, logging and linear experiments only so far)");
  }
  std::vector<DType> out;
  for (const auto& name : names) out.push_back(parse_dtype(name));
  node.default_from(key, "[run.dtype]");
  return out;
}

std::vector<std::int64_t> read_rank_sweep(ConfigNode& node, int job_size, const std::string& key) {
  std::vector<std::int64_t> doubling;
  for (std::int64_t p = 1; p <= job_size; p *= 2) doubling.push_back(p);
  if (doubling.back() != job_size) doubling.push_back(job_size);
  auto ranks = node.get_list<std::int64_t>(key, doubling);
  node.default_from(key, "1, 2, 4, … and the job size");
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  for (std::int64_t p : ranks) {
    if (p < 1 || p > job_size) {
      node.fail(key, "p=" + std::to_string(p) + " is not between 1 and the job's " +
                         std::to_string(job_size) + " ranks (start more with mpiexec -n)");
    }
  }
  return ranks;
}

std::optional<std::pair<int, int>> read_process_grid(ConfigNode& node, const std::vector<std::int64_t>& ranks,
                                                     int job_size, const std::string& absent,
                                                     const std::string& key) {
  if (!node.has(key)) {
    node.default_from(key, absent);
    return std::nullopt;
  }
  const auto g = node.get_list<std::int64_t>(key, {});
  if (g.size() != 2 || g[0] < 1 || g[1] < 1) node.fail(key, "must be [pr, pc], two positive integers");
  // Sides beyond the job size can form no grid; bounding them first keeps pr·pc exact.
  if (g[0] > job_size || g[1] > job_size) {
    node.fail(key, "each side must be at most the job's " + std::to_string(job_size) + " ranks");
  }
  for (std::int64_t p : ranks) {
    if (g[0] * g[1] != p) {
      node.fail(key, "[" + std::to_string(g[0]) + ", " + std::to_string(g[1]) +
                         "] is a process grid that cannot be formed from p=" + std::to_string(p) +
                         " ranks: pr·pc must equal every p in 'ranks'");
    }
  }
  return std::pair{static_cast<int>(g[0]), static_cast<int>(g[1])};
}

}  // namespace minigpu
