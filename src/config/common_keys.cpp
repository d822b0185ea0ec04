// Shared experiment keys, validated with positions like every other key.
#include "config/common_keys.hpp"

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

GemmKernel read_gemm_kernel(ConfigNode& node, const std::string& key) {
  return node.get_choice(key, {"vendor", "native"}, "vendor") == "native" ? GemmKernel::native
                                                                          : GemmKernel::vendor;
}

std::vector<DType> read_dtypes(ConfigNode& node, DType fallback, const std::string& key) {
  std::vector<DType> out;
  for (const auto& name : node.get_choice_list(key, {"float32", "float64"}, {to_string(fallback)})) {
    out.push_back(parse_dtype(name));
  }
  node.default_from(key, "[run.dtype]");
  return out;
}

}  // namespace minigpu
