// The files of a run: results.csv (tidy rows) and run.json (provenance + every result),
// written into a temporary directory that is renamed into place only when complete.
#pragma once

#include "io/results.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace minigpu::io {

/// Everything run.json records besides the results.
struct Provenance {
  nlohmann::json fields = nlohmann::json::object();  ///< version, Kokkos, host, devices, MPI map, input
};

/// One tidy CSV: fixed columns plus one column per parameter name seen in any case.
std::string results_csv(const std::vector<CaseResult>& results);
/// The run record as JSON.
nlohmann::json run_json(const Provenance& provenance, const std::vector<CaseResult>& results,
                        const std::vector<Finding>& findings);
/// Writes both files under `output_dir`/`run_name`-`stamp`[-k] and returns the final path.
/// Never overwrites an existing run directory; leaves nothing behind on failure.
std::string write_run_directory(const std::string& output_dir, const std::string& run_name,
                                const std::string& stamp, const std::string& csv,
                                const nlohmann::json& record);

}  // namespace minigpu::io
