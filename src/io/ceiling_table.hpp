// The machine's reference figures as a run records them: ceilings/ measures and caches them,
// the runner sets each rate against them, the console and run.json show them.
#pragma once

#include "core/wire.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace minigpu {

struct Ceiling {
  std::string name;   ///< key, e.g. "host_memcpy"
  std::string label;  ///< what a percentage is "of", e.g. "host memcpy", "OpenBLAS 0.3.21 sgemm, 1 thread"
  double value = 0;
  std::string unit;  ///< "GB/s" or "GFLOP/s"
  std::string how;   ///< the measurement in one line: size, repetitions, threads
  /// The bytes its kernel touches (source and destination, or triad's three arrays) where it is
  /// one of a family measured at several sizes (host_memcpy, host_memcpy@1MiB, ...); 0 otherwise.
  std::int64_t bytes = 0;
  /// Measured on the host's CPUs and memory ("host_..."), not on a GPU ("gpu_...").
  bool on_host() const { return name.rfind("host_", 0) == 0; }
};

struct CeilingTable {
  std::vector<Ceiling> ceilings;
  /// Where the figures come from: "measured now on HOST by rank 0" or "cache PATH (measured ...)".
  std::string source;
  /// "" or why the host's figures are doubtful: they contradict each other (more threads slower
  /// than one) or the machine was loaded while they were measured. Such a table is never cached.
  std::string doubt;

  const Ceiling* find(const std::string& name) const;
  /// `doubt` where it concerns `c`: a host ceiling ("host_..."). A GPU's are timed on the GPU,
  /// which neither the host's threads sharing a core nor its load slow: the H200 node's host
  /// FMA check once made a cuBLAS row's "above its ceiling" blame host_fma_f32.
  const std::string& doubt_about(const Ceiling& c) const;
  /// The ceiling `name` for a case touching `bytes`: of the family `name`, `name@SIZE`, the one
  /// measured on the fewest bytes at least `bytes` (the largest when none is), so that data in a
  /// cache are set against a ceiling in that cache; find(name) for a ceiling of one size.
  const Ceiling* find_for(const std::string& name, std::int64_t bytes) const;
  /// run.json's "ceilings" array (the source is recorded beside it, as "ceilings_source").
  nlohmann::json to_json() const;
  static CeilingTable from_json(const nlohmann::json& j);
};

/// How rank 0's table reaches the other ranks (core/wire.hpp, comm/typed_exchange.hpp).
template <class Archive>
void fields(Archive& a, Ceiling& c) {
  a(c.name, c.label, c.value, c.unit, c.how, c.bytes);
}
template <class Archive>
void fields(Archive& a, CeilingTable& t) {
  a(t.ceilings, t.source, t.doubt);
}

}  // namespace minigpu
