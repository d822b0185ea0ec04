// transfer: copy bandwidth between host and device memory, the cost behind the chapter's
// advice to avoid moving data. For each size, direction and host-memory kind:
//   h2d  device_buf <- host_buf    (host_buf pageable or pinned)
//   d2h  host_buf   <- device_buf
//   d2d  device_buf2 <- device_buf  (two buffers on the device under test)
// each done as `chunks` deep_copies of bytes/chunks (many small copies vs one big one).
// The source holds a position-dependent byte pattern; verify() checks every destination byte
// on the host. Accounting per repetition: bytes = the buffer size (each byte counted once), flops 0.
// Device memory of a cpu or emulated GPU is host memory; pinned host memory exists only where
// the backend has it (kHasPinnedHostMemory), else only pageable is measured.
#include "config/common_keys.hpp"
#include "core/backend.hpp"
#include "experiments/registry.hpp"
#include "io/format.hpp"
#include "kernels/byte_copy.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

namespace minigpu {
namespace {

constexpr std::uint64_t kSeed = 0x7A5F3E2D1C0B0A09ULL;
constexpr std::int64_t kMaxChunks = std::int64_t(1) << 20;

/// A source and destination buffer in fixed memory spaces, behind a runtime interface.
struct CopyJob {
  virtual ~CopyJob() = default;
  virtual void run(std::int64_t chunks) = 0;
  /// First destination byte that lacks the pattern, or -1.
  virtual std::int64_t first_mismatch() const = 0;
};

template <class DstSpace, class SrcSpace>
struct CopyJobOf : CopyJob {
  Kokkos::View<unsigned char*, Kokkos::LayoutRight, DstSpace> dst;
  Kokkos::View<unsigned char*, Kokkos::LayoutRight, SrcSpace> src;

  explicit CopyJobOf(std::int64_t bytes)
      : dst("minigpu::transfer::dst", bytes),
        src(Kokkos::view_alloc(Kokkos::WithoutInitializing, "minigpu::transfer::src"), bytes) {
    kernels::fill_pattern(src, kSeed);
    Kokkos::fence();
  }
  void run(std::int64_t chunks) override { kernels::chunked_copy(dst, src, chunks); }
  std::int64_t first_mismatch() const override {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst);
    return kernels::find_pattern_mismatch(host.data(), static_cast<std::int64_t>(host.extent(0)), kSeed);
  }
};

template <class DevSpace, class HostSpaceKind>
std::unique_ptr<CopyJob> make_host_job(const std::string& direction, std::int64_t bytes) {
  if (direction == "h2d") return std::make_unique<CopyJobOf<DevSpace, HostSpaceKind>>(bytes);
  return std::make_unique<CopyJobOf<HostSpaceKind, DevSpace>>(bytes);
}

template <class DevSpace>
std::unique_ptr<CopyJob> make_job_on(const std::string& direction, bool pinned, std::int64_t bytes) {
  if (direction == "d2d") return std::make_unique<CopyJobOf<DevSpace, DevSpace>>(bytes);
  if (pinned) return make_host_job<DevSpace, PinnedHostMemSpace>(direction, bytes);
  return make_host_job<DevSpace, HostMemSpace>(direction, bytes);
}

/// The runtime device picks the compile-time memory space, as with_views does for tensors.
std::unique_ptr<CopyJob> make_job(Device device, const std::string& direction, bool pinned,
                                  std::int64_t bytes) {
  if (uses_host_memory(device)) return make_job_on<HostMemSpace>(direction, pinned, bytes);
  return make_job_on<GpuMemSpace>(direction, pinned, bytes);
}

}  // namespace

class TransferExperiment : public Experiment {
 public:
  void configure(ConfigNode& node, const RunContext&) override {
    device_ = read_device(node);
    std::vector<std::int64_t> default_sizes;
    for (std::int64_t b = 1024; b <= (std::int64_t(1) << 30); b *= 4) default_sizes.push_back(b);
    sizes_ = node.get_byte_list("sizes", default_sizes);
    directions_ = read_choices(node, "directions", {"h2d", "d2h", "d2d"}, {"h2d", "d2h", "d2d"});
    const auto kinds = read_choices(node, "host_memory", {"pageable", "pinned"}, {"pageable", "pinned"});
    chunks_ = node.get_list<std::int64_t>("chunks", {1, 16, 256});
    for (auto k : chunks_) {
      if (k < 1 || k > kMaxChunks) node.fail("chunks", "must be between 1 and " + std::to_string(kMaxChunks));
    }
    const bool want_pinned = std::find(kinds.begin(), kinds.end(), "pinned") != kinds.end();
    pinned_ = want_pinned && kHasPinnedHostMemory && !uses_host_memory(device_);
    // Without pinned memory the pageable measurement stands in for it.
    const bool want_pageable = std::find(kinds.begin(), kinds.end(), "pageable") != kinds.end();
    host_kinds_.clear();
    if (want_pageable || !pinned_) host_kinds_.push_back("pageable");
    if (pinned_) {
      host_kinds_.push_back("pinned");
      pinned_note_ = "pinned host memory measured";
    } else if (!want_pinned) {
      pinned_note_ = "pinned not requested";
    } else if (!kHasPinnedHostMemory) {
      pinned_note_ = "pageable only: this build has no pinned host memory";
    } else {
      pinned_note_ = "pageable only: " + describe(device_) + " uses host memory, so pinning changes nothing";
    }
  }

  std::vector<CaseSpec> cases() const override {
    std::vector<CaseSpec> out;
    for (const auto& direction : directions_) {
      const bool d2d = direction == "d2d";
      for (const auto& kind : d2d ? std::vector<std::string>{"-"} : host_kinds_) {
        for (auto k : chunks_) {
          for (auto bytes : sizes_) {
            if (k > bytes) continue;  // a chunk must hold at least one byte
            CaseSpec c;
            c.label =
                direction + (d2d ? "" : " " + kind) + " " + io::human_bytes(bytes) + " x" + std::to_string(k);
            c.params = {{"direction", direction},
                        {"host_memory", kind},
                        {"bytes", std::to_string(bytes)},
                        {"chunks", std::to_string(k)}};
            c.device = device_;
            // Host buffers count too where the device's memory is the host's.
            c.device_bytes = static_cast<std::uint64_t>(bytes) * (d2d || uses_host_memory(device_) ? 2 : 1);
            out.push_back(c);
          }
        }
      }
    }
    return out;
  }

  void setup(const CaseSpec& spec) override {
    bytes_ = std::stoll(spec.param("bytes"));
    chunks_now_ = std::stoll(spec.param("chunks"));
    job_ = make_job(spec.device, spec.param("direction"), spec.param("host_memory") == "pinned", bytes_);
  }

  void run_once() override { job_->run(chunks_now_); }

  Check verify() override {
    const std::int64_t bad = job_->first_mismatch();
    if (bad >= 0) {
      return {false, "destination byte " + std::to_string(bad) + " differs from the source pattern"};
    }
    return {true, "all " + std::to_string(bytes_) + " bytes match"};
  }

  Work work() const override { return {static_cast<double>(bytes_), 0.0}; }

  void teardown() override { job_.reset(); }

  std::vector<Finding> summarize(const std::vector<CaseResult>& results) const override {
    // Group by direction and host memory: "h2d_pinned", "d2d".
    std::vector<std::string> order;
    std::map<std::string, std::vector<const CaseResult*>> groups;
    for (const auto& r : results) {
      const std::string kind = r.spec.param("host_memory");
      const std::string group = r.spec.param("direction") + (kind == "-" ? "" : "_" + kind);
      if (!groups.count(group)) order.push_back(group);
      groups[group].push_back(&r);
    }
    std::vector<Finding> out;
    std::map<std::string, double> peaks;
    for (const auto& group : order) {
      const auto& rows = groups[group];
      const CaseResult* best =
          *std::max_element(rows.begin(), rows.end(),
                            [](const CaseResult* a, const CaseResult* b) { return a->gbps < b->gbps; });
      peaks[group] = best->gbps;
      out.push_back({"", "peak_gbps_" + group, best->gbps, "GB/s",
                     "at " + io::human_bytes(std::stoull(best->spec.param("bytes"))) + " in " +
                         best->spec.param("chunks") + " chunk(s)"});
      if (auto f = chunk_ratio(group, rows)) out.push_back(*f);
    }
    for (const char* dir : {"h2d", "d2h"}) {
      const auto pinned = peaks.find(std::string(dir) + "_pinned");
      const auto pageable = peaks.find(std::string(dir) + "_pageable");
      if (pinned != peaks.end() && pageable != peaks.end() && pageable->second > 0) {
        out.push_back({"", std::string("pinned_over_pageable_") + dir, pinned->second / pageable->second, "x",
                       "peak bandwidth ratio"});
      }
    }
    out.push_back({"", "pinned_host_memory", pinned_ ? 1.0 : 0.0, "", pinned_note_});
    return out;
  }

 private:
  /// Time of the most chunks over the fewest at the largest size where both ran.
  static std::optional<Finding> chunk_ratio(const std::string& group,
                                            const std::vector<const CaseResult*>& rows) {
    std::map<std::int64_t, std::map<std::int64_t, double>> by_size;  // bytes -> chunks -> median s
    for (const auto* r : rows) {
      by_size[std::stoll(r->spec.param("bytes"))][std::stoll(r->spec.param("chunks"))] = r->seconds.median;
    }
    for (auto it = by_size.rbegin(); it != by_size.rend(); ++it) {
      const auto& times = it->second;
      if (times.size() < 2 || times.begin()->second <= 0) continue;
      const auto few = *times.begin();
      const auto many = *times.rbegin();
      return Finding{"", "many_small_over_one_big_" + group, many.second / few.second, "x",
                     io::human_bytes(static_cast<std::uint64_t>(it->first)) + " as " +
                         std::to_string(many.first) + " copies vs " + std::to_string(few.first) + ": " +
                         io::significant(many.second) + " s vs " + io::significant(few.second) + " s"};
    }
    return std::nullopt;
  }

  Device device_;
  std::vector<std::int64_t> sizes_, chunks_;
  std::vector<std::string> directions_, host_kinds_;
  bool pinned_ = false;
  std::string pinned_note_;
  std::int64_t bytes_ = 0, chunks_now_ = 1;
  std::unique_ptr<CopyJob> job_;
};

MINIGPU_REGISTER_EXPERIMENT(TransferExperiment, "transfer",
                            "Host/device copy bandwidth: sizes, pageable vs pinned, many small vs one big");

}  // namespace minigpu
