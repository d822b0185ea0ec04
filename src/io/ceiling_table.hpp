// The machine's reference figures as a run records them: ceilings/ measures and caches them,
// the runner sets each rate against them, the console and run.json show them.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace minigpu {

struct Ceiling {
  std::string name;   ///< key, e.g. "host_memcpy"
  std::string label;  ///< what a percentage is "of", e.g. "host memcpy", "OpenBLAS 0.3.21 sgemm, 1 thread"
  double value = 0;
  std::string unit;  ///< "GB/s" or "GFLOP/s"
  std::string how;   ///< the measurement in one line: size, repetitions, threads
};

struct CeilingTable {
  std::vector<Ceiling> ceilings;
  /// Where the figures come from: "measured now on HOST by rank 0" or "cache PATH (measured ...)".
  std::string source;

  const Ceiling* find(const std::string& name) const;
  /// run.json's "ceilings" array (the source is recorded beside it, as "ceilings_source").
  nlohmann::json to_json() const;
  static CeilingTable from_json(const nlohmann::json& j);
};

}  // namespace minigpu
