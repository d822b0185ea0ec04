// What a run record says about where and how it ran: version, Kokkos, host, BLAS, devices,
// the rank map and the input, so each result can reproduce itself.
#pragma once

#include "io/run_record.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace minigpu::io {

/// What the provenance takes from the job and its plan.
struct ProvenanceInputs {
  int ranks = 1;
  nlohmann::json rank_map;  ///< rank_placement() of every rank, in rank order
  std::string input_file;
  nlohmann::json resolved_input;
  std::vector<std::string> overrides;
  nlohmann::json experiments;  ///< [{name, description, figure}] in plan order
};

/// This rank's place: {rank, host, local_rank, device_id, device}; `host` is the node's name.
nlohmann::json rank_placement(int rank, const std::string& host);

/// run.json's provenance fields for this process's build, machine and environment.
Provenance provenance(const ProvenanceInputs& in);

}  // namespace minigpu::io
