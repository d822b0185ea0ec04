// The auto kernel's choice per device, dtype and size class, and its cache.
#include "gemm/choice.hpp"

#include "ceilings/ceilings.hpp"
#include "core/backend.hpp"
#include "core/environment.hpp"
#include "core/stopwatch.hpp"
#include "io/format.hpp"
#include "kernels/matmul_vendor.hpp"

#include <algorithm>
#include <cmath>

namespace minigpu {
namespace {

std::string shape_text(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

std::string processor_name(bool gpu_memory) {
  if (gpu_memory && num_gpus() > 0 && !gpus_are_emulated()) return gpu_properties(active_gpu_id()).name;
  return host_info().cpu_model;
}

}  // namespace

GemmChooser::GemmChooser(Measure measure, nlohmann::json cache_key, bool root)
    : measure_(std::move(measure)), cache_key_(std::move(cache_key)), root_(root) {}

std::int64_t GemmChooser::size_class(std::int64_t m, std::int64_t n, std::int64_t k) {
  const double volume =
      std::max(1.0, static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
  const double log2_side = std::log2(volume) / 3;
  return std::int64_t(1) << std::clamp(static_cast<int>(std::lround(log2_side)), 3, 20);
}

GemmShape GemmChooser::timed_shape(std::int64_t m, std::int64_t n, std::int64_t k) {
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= kExactVolume) {
    return {std::max<std::int64_t>(m, 1), std::max<std::int64_t>(n, 1), std::max<std::int64_t>(k, 1)};
  }
  const std::int64_t side = std::min(size_class(m, n, k), kMaxTimedN);
  return {side, side, side};
}

// "host/float32/1024" for a square class, "host/float32/100x100x100" for a product's own shape.
std::string GemmChooser::class_key(bool gpu_memory, DType dtype, const std::string& size) {
  return std::string(gpu_memory ? "gpu" : "host") + "/" + to_string(dtype) + "/" + size;
}

// Rank 0 reads the cache and every rank takes its copy, in one exchange: all ranks then hold the
// same table and miss the same classes, so the measurements' sharing stays collective.
void GemmChooser::load(const Share& share) {
  if (loaded_) return;
  loaded_ = true;
  Loaded mine{"measured in this process", {}};
  if (root_ && !cache_key_.is_null()) {
    std::string path;
    if (const auto cached = load_cached("gemm-choices", cache_key_, path)) {
      const nlohmann::json stored = cached->value("entries", nlohmann::json::object());
      for (const auto& [key, e] : stored.items()) {
        mine.entries[key] = {e.at("vendor_s").get<double>(), e.at("native_s").get<double>(),
                             e.at("measured").get<std::string>(), e.at("on").get<std::string>()};
      }
      mine.source = "cached in " + path;
    } else {
      mine.source = path.empty() ? "measured by rank 0, not cached: no cache directory"
                                 : "measured by rank 0, cached in " + path;
    }
  }
  Loaded all = wire::through(mine, root_, share);
  source_ = std::move(all.source);
  entries_ = std::move(all.entries);
}

GemmPick GemmChooser::pick(GemmChoice choice, Device device, DType dtype, std::int64_t m, std::int64_t n,
                           std::int64_t k, const Share& share, const std::string& no_vendor,
                           const NativePreference& prefer) {
  if (choice == GemmChoice::vendor) return {GemmKernel::vendor, "vendor: named in the input"};
  if (choice == GemmChoice::native) return {GemmKernel::native, "native: named in the input"};
  if (!no_vendor.empty()) return {GemmKernel::native, io::auto_choice("native", no_vendor)};
  if (!kernels::has_vendor_gemm(device, dtype)) {
    return {GemmKernel::native, io::auto_choice("native", "no vendor " + to_string(dtype) + " GEMM on " +
                                                              describe(device) + " memory in this build")};
  }
  load(share);
  const bool gpu_memory = !uses_host_memory(device);
  const bool exact = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= kExactVolume;
  const GemmShape shape = timed_shape(m, n, k);
  const std::string size = exact ? shape_text(shape) : std::to_string(size_class(m, n, k));
  const std::string key = class_key(gpu_memory, dtype, size);
  if (entries_.find(key) == entries_.end()) {
    Entry mine;
    if (root_) {
      const GemmPairTiming t = measure_(gpu_memory, dtype, shape);
      mine = {t.vendor_s, t.native_s, utc_now_iso8601(), processor_name(gpu_memory)};
    }
    entries_[key] = wire::through(mine, root_, share);
    if (root_ && !cache_key_.is_null()) {
      std::string why;
      store_cached("gemm-choices", cache_key_, {{"entries", io::gemm_choice_entries_json(record())}}, why);
    }
  }
  const Entry& e = entries_.at(key);
  const bool faster = e.native_s > 0 && e.native_s < e.vendor_s;
  const bool preferred = !faster && e.native_s > 0 && e.native_s < e.vendor_s * (1 + prefer.within);
  const bool native = faster || preferred;
  // "vendor 1.02x native": the winner's speed over the loser's, to 3 digits so a near tie shows.
  const double ratio = faster ? e.vendor_s / e.native_s : e.native_s / std::max(e.vendor_s, 1e-300);
  const std::string winner = faster ? "native" : "vendor", loser = faster ? "vendor" : "native";
  const std::string measured = winner + " " + io::significant(ratio, 3) + "x " + loser +
                               (exact ? " at " : " at n~") + size + ", " + to_string(dtype) + ", measured " +
                               e.measured + " on " + e.on;
  const std::string kept =
      preferred ? "; native within " + io::significant(100 * prefer.within, 2) + " %, " + prefer.because : "";
  return {native ? GemmKernel::native : GemmKernel::vendor,
          io::auto_choice(native ? "native" : "vendor", measured + kept)};
}

io::GemmChoiceRecord GemmChooser::record() const {
  io::GemmChoiceRecord r{{}, source_};
  for (const auto& [key, e] : entries_) r.entries.push_back({key, e.vendor_s, e.native_s, e.measured, e.on});
  return r;
}

}  // namespace minigpu
