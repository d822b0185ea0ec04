// The readable table rank 0 prints as cases finish, with a progress line for long sweeps.
#pragma once

#include "io/results.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace minigpu::io {

class ConsoleWriter {
 public:
  explicit ConsoleWriter(std::ostream& os) : os_(os) {}
  /// CPU, vector width, compiler flags, host BLAS and threads: what figures depend on.
  void host_build(const nlohmann::json& provenance);
  /// One line per rank: host, local rank, device id and name.
  void rank_map(const nlohmann::json& ranks);
  /// --dry-run: the resolved input (overrides applied), then every case once with its device,
  /// dtype and memory per rank, as `ranks` ranks would run them.
  void plan(const nlohmann::json& resolved_input,
            const std::vector<std::pair<std::string, std::vector<CaseSpec>>>& experiments, int ranks);
  void case_finished(const CaseResult& r, int index, int total, double elapsed_s);
  void findings(const std::vector<Finding>& findings);
  void summary(const std::vector<CaseResult>& results, const std::string& results_dir);

 private:
  std::ostream& os_;
  std::string current_experiment_;
};

}  // namespace minigpu::io
