// One matmul_scaling case: which algorithm multiplies, on how many ranks, at which n.
#pragma once

#include "distributed/distributed_matmul.hpp"
#include "kernels/block_partition.hpp"

#include <cstdint>
#include <string>

namespace minigpu {

struct ScalingCase {
  Decomposition decomposition = Decomposition::row;
  int p = 1;
  std::int64_t n = 0;
  kernels::ProcessGrid grid;
  SummaOptions summa;  // summa only
};

// The row's name in findings: "summa" is the default (overlapped) schedule.
inline std::string algorithm_name(const ScalingCase& c) {
  if (c.decomposition != Decomposition::summa)
    return c.decomposition == Decomposition::row ? "row" : "scalapack";
  return c.summa.overlap ? "summa" : "summa_blocking";
}

}  // namespace minigpu
