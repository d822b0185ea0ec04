// `minigpu compare`: two runs, or a run and a reference file, case by case (compare/).
#pragma once

#include "comm/mpi_session.hpp"

#include <optional>
#include <string>

namespace minigpu {

struct CompareOptions {
  std::string baseline;              ///< A: a run directory, run.json or reference file
  std::string candidate;             ///< B; empty with --reference
  std::string reference;             ///< --reference FILE: the baseline, A becoming the candidate
  std::optional<double> fail_below;  ///< --fail-below PCT
  std::string json;                  ///< --json FILE ("-": standard output, instead of the table)
  std::string csv;                   ///< --csv FILE ("-": standard output)
};

/// Prints the comparison on rank 0 and writes the files asked for; returns 0, or 1 when
/// --fail-below finds a case past its threshold. Bad arguments or files throw InputError.
int compare_command(const CompareOptions& options, const MpiSession& mpi);

}  // namespace minigpu
