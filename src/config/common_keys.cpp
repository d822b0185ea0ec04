// Shared experiment keys, validated with positions like every other key.
#include "config/common_keys.hpp"

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

std::vector<std::string> read_choices(ConfigNode& node, const std::string& key,
                                      const std::vector<std::string>& choices,
                                      const std::vector<std::string>& fallback) {
  std::vector<std::string> out;
  for (const auto& value : node.get_list<std::string>(key, fallback)) {
    if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
      std::string list;
      for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
      node.fail(key, "'" + shown(value) + "' is not one of: " + list);
    }
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
  return out;
}

GemmKernel read_gemm_kernel(ConfigNode& node, const std::string& key) {
  return node.get_choice(key, {"vendor", "native"}, "vendor") == "native" ? GemmKernel::native
                                                                          : GemmKernel::vendor;
}

std::vector<DType> read_dtypes(ConfigNode& node, DType fallback, const std::string& key) {
  std::vector<DType> out;
  for (const auto& name : read_choices(node, key, {"float32", "float64"}, {to_string(fallback)})) {
    out.push_back(parse_dtype(name));
  }
  return out;
}

}  // namespace minigpu
