// `kernel: auto`: which GEMM, vendor or native, is faster for a device, dtype and size class,
// measured once per host and build and cached beside the ceilings (same key, same directory).
// A size class is the power of two nearest the cube root of m·n·k; each class is timed when
// first asked for, as a square product of that size (at most kMaxTimedN: larger products
// behave like it), so a run measures only the sizes it uses.
#pragma once

#include "core/device.hpp"
#include "core/gemm_dims.hpp"
#include "core/shape.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace minigpu {

/// The kernel a product runs, and why, in one line for rows and run.json.
struct GemmPick {
  GemmKernel kernel = GemmKernel::vendor;
  std::string why;
};

/// Seconds per call of each kernel, timed in one sitting.
struct GemmPairTiming {
  double vendor_s = 0, native_s = 0;
};

/// Times vendor and native at n×n×n on host or GPU memory (ceilings/gemm_timing.cpp).
GemmPairTiming time_gemm_pair(bool gpu_memory, DType dtype, std::int64_t n);

class GemmChooser {
 public:
  static constexpr std::int64_t kMaxTimedN = 2048;
  /// Times one size class (rank 0 only): time_gemm_pair in a run, a fake in tests.
  using Measure = std::function<GemmPairTiming(bool gpu_memory, DType dtype, std::int64_t n)>;
  /// Gives every rank rank 0's text (identity in one process); all ranks call pick() alike.
  using Share = std::function<std::string(const std::string&)>;

  /// `cache_key` null: nothing is read or written. `root`: this rank measures and caches.
  GemmChooser(Measure measure, nlohmann::json cache_key, bool root);

  /// The named kernel, or for `automatic` the faster measured one for this product.
  GemmPick pick(GemmChoice choice, Device device, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k,
                const Share& share);

  /// Every class measured or read so far, and where the figures came from.
  nlohmann::json to_json() const;

  static std::int64_t size_class(std::int64_t m, std::int64_t n, std::int64_t k);

 private:
  struct Entry {
    double vendor_s = 0, native_s = 0;
    std::string measured, on;  ///< UTC time, and the CPU or GPU
  };
  static std::string class_key(bool gpu_memory, DType dtype, std::int64_t n);
  void load(const Share& share);

  Measure measure_;
  nlohmann::json cache_key_;
  bool root_ = false, loaded_ = false;
  std::string source_;
  std::map<std::string, Entry> entries_;
};

}  // namespace minigpu
