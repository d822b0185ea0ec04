// The gemm room's choice (the kernels themselves: kernels/gemm*.hpp, the vendor calls:
// core/backend_blas.hpp). `kernel: auto`: which GEMM, vendor or native, is faster for a device, dtype and
// size class, measured once per host and build and cached beside the ceilings (same key, same directory). A
// product of at most kExactVolume (256³) is its own class, timed at its own shape: small products have cliffs
// a class would hide (OpenBLAS 0.3.21's AVX-512 sgemm takes an unpacked path up to 100³, 146 GFLOP/s at n =
// 100 where miniGPU's native ran 112-129, while at 128 native is the faster). A larger one's class is the
// power of two nearest the cube root of m·n·k, timed as a square product of that size (at most kMaxTimedN:
// larger products behave like it). Each class is timed when first asked for, so a run measures only the sizes
// it uses.
#pragma once

#include "core/device.hpp"
#include "core/gemm_dims.hpp"
#include "core/shape.hpp"
#include "core/wire.hpp"
#include "io/run_record.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace minigpu {

/// The kernel a product runs, and why, in one line for rows and run.json.
struct GemmPick {
  GemmKernel kernel = GemmKernel::vendor;
  std::string why;
};

/// For `auto`: take the native kernel also where it measured slower, by less than `within` (0.05:
/// 5 %), `because` the product gains from it what the timing does not show.
struct NativePreference {
  double within = 0;
  std::string because;
};

/// Seconds per call of each kernel, timed in one sitting.
struct GemmPairTiming {
  double vendor_s = 0, native_s = 0;
};

/// The shape a class is timed at: m×k times k×n.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  bool operator==(const GemmShape& o) const { return m == o.m && n == o.n && k == o.k; }
  bool operator<(const GemmShape& o) const { return m != o.m ? m < o.m : n != o.n ? n < o.n : k < o.k; }
};

/// Times vendor and native at `shape` on host or GPU memory (gemm/timing.cpp).
GemmPairTiming time_gemm_pair(bool gpu_memory, DType dtype, GemmShape shape);

class GemmChooser {
 public:
  static constexpr std::int64_t kMaxTimedN = 2048;
  static constexpr double kExactVolume = 256.0 * 256.0 * 256.0;
  /// Times one size class (rank 0 only): time_gemm_pair in a run, a fake in tests.
  using Measure = std::function<GemmPairTiming(bool gpu_memory, DType dtype, GemmShape shape)>;
  /// Gives every rank rank 0's bytes (comm::broadcast_bytes; identity in one process); all
  /// ranks call pick() alike.
  using Share = std::function<std::vector<char>(const std::vector<char>&)>;

  /// `cache_key` null: nothing is read or written. `root`: this rank measures and caches.
  GemmChooser(Measure measure, nlohmann::json cache_key, bool root);

  /// The named kernel, or for `automatic` the faster measured one for this product; native
  /// without measuring where the build has no vendor GEMM for it or the caller says why this
  /// product cannot take one (`no_vendor`); native also where `prefer` allows it.
  GemmPick pick(GemmChoice choice, Device device, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k,
                const Share& share, const std::string& no_vendor = "", const NativePreference& prefer = {});

  /// Every class measured or read so far, and where the figures came from.
  io::GemmChoiceRecord record() const;
  /// Whether any product asked for `auto` (only then is there a table to record).
  bool used() const { return loaded_; }

  /// The power of two nearest ∛(m·n·k), within [8, 2^20].
  static std::int64_t size_class(std::int64_t m, std::int64_t n, std::int64_t k);
  /// The shape a product's class is timed at: its own up to kExactVolume, else the square of
  /// its size_class (at most kMaxTimedN).
  static GemmShape timed_shape(std::int64_t m, std::int64_t n, std::int64_t k);

 private:
  struct Entry {
    double vendor_s = 0, native_s = 0;
    std::string measured, on;  ///< UTC time, and the CPU or GPU
    template <class Archive>
    friend void fields(Archive& a, Entry& e) {
      a(e.vendor_s, e.native_s, e.measured, e.on);
    }
  };
  /// What rank 0 read from the cache, sent to every rank in one exchange.
  struct Loaded {
    std::string source;
    std::map<std::string, Entry> entries;
    template <class Archive>
    friend void fields(Archive& a, Loaded& l) {
      a(l.source, l.entries);
    }
  };
  static std::string class_key(bool gpu_memory, DType dtype, const std::string& size);
  void load(const Share& share);

  Measure measure_;
  nlohmann::json cache_key_;
  bool root_ = false, loaded_ = false;
  std::string source_;
  std::map<std::string, Entry> entries_;
};

}  // namespace minigpu
