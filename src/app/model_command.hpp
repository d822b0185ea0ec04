// `minigpu model`: matmul_scaling's speedup and efficiency on 1 … max_p GPUs as the α–β–γ
// model (distributed/scaling_model.*) predicts them from a hardware profile or a run's measured figures.
#pragma once

#include "comm/mpi_session.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace minigpu {

struct ModelOptions {
  std::string from;     ///< a run directory whose run.json has a scaling_model section
  std::string profile;  ///< or a YAML hardware profile (inputs/hardware/)
  std::int64_t n = 16384;
  std::optional<int> gpus_per_node;  ///< overrides the profile's or the run's
  std::string dtype = "float32";
  int max_p = 512;
  std::string mode = "strong";  ///< strong, weak or both
  std::string plot;             ///< PNG to draw the efficiency curves into
};

/// Prints the model's tables on rank 0; exit code as in README's table.
int model_command(const ModelOptions& options, const MpiSession& mpi);

}  // namespace minigpu
