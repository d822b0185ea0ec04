// `kernel: auto` for experiments: one chooser per process (ceilings/gemm_choice.hpp), its
// measurements shared from rank 0 over the run's communicator, its figures for run.json.
#pragma once

#include "ceilings/gemm_choice.hpp"
#include "engine/experiment.hpp"

#include <nlohmann/json.hpp>

namespace minigpu {

/// The kernel a case's m×k by k×n products run, and why. Every rank of ctx.comm calls it
/// with the same arguments in the same order (it may measure, rank 0 timing for all).
GemmPick pick_gemm_kernel(const RunContext& ctx, GemmChoice choice, Device device, DType dtype,
                          std::int64_t m, std::int64_t n, std::int64_t k);

/// Caches auto's measurements under `cache_key` (ceilings_cache_key of the build) from now on;
/// without it (tests, benchmarks) each process measures the classes it uses.
void cache_gemm_choices(const nlohmann::json& cache_key);

/// What auto measured or read in this process, for run.json; null when no case asked.
nlohmann::json gemm_choices_record();

}  // namespace minigpu
