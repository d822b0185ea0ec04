// Keys whose values the comm layer resolves, read one way: `gpu_aware_mpi`.
#pragma once

#include "comm/gpu_aware.hpp"
#include "config/config_node.hpp"
#include "core/device.hpp"

#include <string>
#include <vector>

namespace minigpu {

/// `gpu_aware_mpi` (auto, on or off; auto when absent) resolved for buffers on `device` by
/// comm::choose_comm_path; a setting this job cannot honour is an error at the key.
comm::CommPath read_comm_path(ConfigNode& node, Device device, const std::string& key = "gpu_aware_mpi");

/// read_comm_path's path and, where `auto` chose direct for memory that is not host memory,
/// staged after it: device memory MPI takes directly can also be staged through the host, and
/// a study of the two paths measures both side by side.
std::vector<comm::CommPath> read_comm_paths(ConfigNode& node, Device device,
                                            const std::string& key = "gpu_aware_mpi");

}  // namespace minigpu
