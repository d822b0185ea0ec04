// Keys many experiments share, read one way: `device`, `devices`, `dtypes`, `kernel`, size lists,
// rank sweeps and process grids.
#pragma once

#include "config/config_node.hpp"
#include "core/device.hpp"
#include "core/gemm_dims.hpp"
#include "core/shape.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace minigpu {

/// `auto` (try_gpu()), `cpu`, `gpu` or `gpu:N`; a device this process lacks is an error.
Device read_device(ConfigNode& node, const std::string& key = "device");
/// A list of `cpu` and `gpu` (try_gpu(): the cpu where there is no GPU), each device once, in
/// the order given; `fallback` when absent.
std::vector<Device> read_devices(ConfigNode& node, const std::vector<std::string>& fallback = {"cpu", "gpu"},
                                 const std::string& key = "devices");
/// A list of integers in [min, max] with repeats dropped (order kept): a size asked twice
/// would be a second case with the same label, measured twice.
std::vector<std::int64_t> read_sizes(ConfigNode& node, const std::string& key,
                                     const std::vector<std::int64_t>& fallback, std::int64_t min,
                                     std::int64_t max);
/// `auto` (the default: the faster one measured), `vendor` or `native`: the matrix multiply an
/// experiment runs. A non-empty `vendor_refusal` (why the device's memory has no vendor GEMM)
/// makes `vendor` an error at the key (auto then picks native: GemmChooser::pick).
GemmChoice read_gemm_kernel(ConfigNode& node, const std::string& vendor_refusal = "",
                            const std::string& key = "kernel");
/// A list of dtypes (repeats dropped), `fallback` when absent: full precision (float32,
/// float64), or also the 16-bit storage types (bfloat16, float16) for an experiment that takes
/// them (`Precisions::low_too`); a 16-bit type elsewhere is refused naming the key.
enum class Precisions { full, low_too };
std::vector<DType> read_dtypes(ConfigNode& node, DType fallback, const std::string& key = "dtypes",
                               Precisions precisions = Precisions::full);
/// The rank counts of a scaling sweep, each in [1, job_size], sorted with repeats dropped;
/// 1, 2, 4, … and job_size itself when absent.
std::vector<std::int64_t> read_rank_sweep(ConfigNode& node, int job_size, const std::string& key = "ranks");
/// `[pr, pc]`, a process grid every p of `ranks` can form (pr·pc = p, each side at most the
/// job's `job_size` ranks); nullopt when absent (`absent` says what is used then).
std::optional<std::pair<int, int>> read_process_grid(ConfigNode& node, const std::vector<std::int64_t>& ranks,
                                                     int job_size, const std::string& absent,
                                                     const std::string& key = "grid");

}  // namespace minigpu
