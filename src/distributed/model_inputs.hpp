// What `minigpu model` extrapolates from: a hardware profile (YAML, every figure with its
// source) or the scaling_model section a matmul_scaling run wrote into its run.json.
#pragma once

#include "distributed/scaling_model.hpp"

#include <map>
#include <optional>
#include <string>

namespace minigpu::perfmodel {

/// A figure and where it comes from.
struct Sourced {
  double value = 0;
  std::string source;
};

struct ModelInputs {
  std::string origin;  ///< the file read ("inputs/hardware/h100_sxm.yaml", "RUN/run.json")
  std::string name;    ///< the machine, when the profile names it
  perfmodel::Link intra_node, inter_node;
  bool inter_node_known = true;  ///< false: the run stayed on one node; inter_node is intra_node
  Sourced gpus_per_node;
  std::map<std::string, Sourced> gemm_flops_per_s;  ///< by dtype name ("float32", "float64")
  std::string gemm_key = "gemm";                    ///< where the rates sit in `origin`, for errors
  std::optional<Sourced> panel_width;
};

/// Reads a hardware profile; InputError "file:line:col: key 'k': …" for anything wrong,
/// a figure without a `source` included.
ModelInputs load_hardware_profile(const std::string& path);

/// Reads RUN_DIR/run.json's scaling_model section; InputError naming the file and key.
ModelInputs load_run_scaling_model(const std::string& run_dir);

}  // namespace minigpu::perfmodel
