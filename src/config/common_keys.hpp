// Keys many experiments share, read one way: `device`, `dtypes`, `kernel`.
#pragma once

#include "config/config_node.hpp"
#include "core/device.hpp"
#include "core/gemm_dims.hpp"
#include "core/shape.hpp"

#include <string>
#include <vector>

namespace minigpu {

/// `auto` (try_gpu()), `cpu`, `gpu` or `gpu:N`; a device this process lacks is an error.
Device read_device(ConfigNode& node, const std::string& key = "device");
/// `vendor` (the default) or `native`: the matrix multiply an experiment runs.
GemmKernel read_gemm_kernel(ConfigNode& node, const std::string& key = "kernel");
/// A list of float32/float64 (repeats dropped), `fallback` when absent.
std::vector<DType> read_dtypes(ConfigNode& node, DType fallback, const std::string& key = "dtypes");

}  // namespace minigpu
