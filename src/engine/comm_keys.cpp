// `gpu_aware_mpi`, read with its position like every other key: see comm_keys.hpp.
#include "engine/comm_keys.hpp"

#include <stdexcept>
#include <utility>

namespace minigpu {
namespace {

/// The setting as given, and the path it resolves to on `device`.
std::pair<std::string, comm::CommPath> read_setting(ConfigNode& node, Device device, const std::string& key) {
  const std::string setting = node.get_choice(key, {"auto", "on", "off"}, "auto");
  try {
    return {setting, comm::choose_comm_path(setting, device)};
  } catch (const std::invalid_argument& e) {
    node.fail(key, e.what());
  }
}

}  // namespace

comm::CommPath read_comm_path(ConfigNode& node, Device device, const std::string& key) {
  return read_setting(node, device, key).second;
}

std::vector<comm::CommPath> read_comm_paths(ConfigNode& node, Device device, const std::string& key) {
  const auto [setting, path] = read_setting(node, device, key);
  if (setting == "auto" && path == comm::CommPath::direct && !uses_host_memory(device))
    return {comm::CommPath::direct, comm::CommPath::staged};
  return {path};
}

}  // namespace minigpu
