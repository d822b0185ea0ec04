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
#include "core/checked.hpp"
#include "experiments/registry.hpp"
#include "io/format.hpp"
#include "kernels/byte_copy.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace minigpu {
namespace {

constexpr std::uint64_t kSeed = 0x7A5F3E2D1C0B0A09ULL;
constexpr std::int64_t kMaxChunks = std::int64_t(1) << 20;
// 2^50 bytes (1 PiB) per copy is beyond any machine; the bound keeps byte sums exact.
constexpr std::int64_t kMaxBytes = std::int64_t(1) << 50;

enum class Direction { h2d, d2h, d2d };
const char* name_of(Direction d) { return d == Direction::h2d ? "h2d" : d == Direction::d2h ? "d2h" : "d2d"; }

struct TransferCase {
  Direction direction = Direction::h2d;
  bool pinned = false;
  std::int64_t bytes = 0, chunks = 1;
  /// "h2d_pinned", "d2h_pageable", "d2d": the group a finding is about.
  std::string group() const {
    return direction == Direction::d2d ? "d2d"
                                       : std::string(name_of(direction)) + (pinned ? "_pinned" : "_pageable");
  }
};

/// A source and a destination buffer in fixed memory spaces.
template <class DstSpace, class SrcSpace>
class CopyState : public CaseState {
 public:
  explicit CopyState(const TransferCase& c)
      : chunks_(c.chunks),
        dst_("minigpu::transfer::dst", c.bytes),
        src_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "minigpu::transfer::src"), c.bytes) {
    kernels::fill_pattern(src_, kSeed);
    Kokkos::fence();
  }

  void run() override { kernels::chunked_copy(dst_, src_, chunks_); }

  Check verify() override {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst_);
    const auto n = static_cast<std::int64_t>(host.extent(0));
    const std::int64_t bad = kernels::find_pattern_mismatch(host.data(), n, kSeed);
    if (bad >= 0)
      return {false, "destination byte " + std::to_string(bad) + " differs from the source pattern"};
    return {true, "all " + std::to_string(n) + " bytes match"};
  }

 private:
  std::int64_t chunks_;
  Kokkos::View<unsigned char*, Kokkos::LayoutRight, DstSpace> dst_;
  Kokkos::View<unsigned char*, Kokkos::LayoutRight, SrcSpace> src_;
};

/// The runtime device picks the compile-time memory space; the case picks the host side.
std::unique_ptr<CaseState> make_copy(Device device, const TransferCase& c) {
  return with_memory_space(device, [&](auto space) -> std::unique_ptr<CaseState> {
    using Dev = typename decltype(space)::type;
    if (c.direction == Direction::d2d) return std::make_unique<CopyState<Dev, Dev>>(c);
    if (c.pinned) {
      if (c.direction == Direction::h2d) return std::make_unique<CopyState<Dev, PinnedHostMemSpace>>(c);
      return std::make_unique<CopyState<PinnedHostMemSpace, Dev>>(c);
    }
    if (c.direction == Direction::h2d) return std::make_unique<CopyState<Dev, HostMemSpace>>(c);
    return std::make_unique<CopyState<HostMemSpace, Dev>>(c);
  });
}

}  // namespace

class TransferExperiment : public CaseList<TransferCase> {
 public:
  void configure(ConfigNode& node, const RunContext&) override {
    device_ = read_device(node);
    std::vector<std::int64_t> default_sizes;
    for (std::int64_t b = 1024; b <= (std::int64_t(1) << 30); b *= 4) default_sizes.push_back(b);
    const auto sizes = node.get_byte_list("sizes", default_sizes);
    for (auto bytes : sizes) {
      if (bytes > kMaxBytes)
        node.fail("sizes", "every size must be at most 1 PiB (" + std::to_string(kMaxBytes) + " bytes)");
    }
    const auto directions = read_choices(node, "directions", {"h2d", "d2h", "d2d"}, {"h2d", "d2h", "d2d"});
    const auto kinds = read_choices(node, "host_memory", {"pageable", "pinned"}, {"pageable", "pinned"});
    const auto chunks = node.get_list<std::int64_t>("chunks", {1, 16, 256});
    for (auto k : chunks) {
      if (k < 1 || k > kMaxChunks) node.fail("chunks", "must be between 1 and " + std::to_string(kMaxChunks));
    }
    const bool want_pinned = std::find(kinds.begin(), kinds.end(), "pinned") != kinds.end();
    pinned_ = want_pinned && kHasPinnedHostMemory && !uses_host_memory(device_);
    // Without pinned memory the pageable measurement stands in for it.
    const bool want_pageable = std::find(kinds.begin(), kinds.end(), "pageable") != kinds.end();
    std::vector<bool> host_kinds;  // pinned?
    if (want_pageable || !pinned_) host_kinds.push_back(false);
    if (pinned_) host_kinds.push_back(true);
    if (pinned_) {
      pinned_note_ = "pinned host memory measured";
    } else if (!want_pinned) {
      pinned_note_ = "pinned not requested";
    } else if (!kHasPinnedHostMemory) {
      pinned_note_ = "pageable only: this build has no pinned host memory";
    } else {
      pinned_note_ = "pageable only: " + describe(device_) + " uses host memory, so pinning changes nothing";
    }
    clear_cases();
    for (const auto& name : directions) {
      const Direction direction = name == "h2d"   ? Direction::h2d
                                  : name == "d2h" ? Direction::d2h
                                                  : Direction::d2d;
      const bool d2d = direction == Direction::d2d;
      for (bool pinned : d2d ? std::vector<bool>{false} : host_kinds) {
        for (auto k : chunks) {
          for (auto bytes : sizes) {
            if (k > bytes) continue;  // a chunk must hold at least one byte
            const std::string kind = d2d ? "-" : pinned ? "pinned" : "pageable";
            CaseSpec c;
            c.label = name + (d2d ? "" : " " + kind) + " " +
                      io::human_bytes(static_cast<std::uint64_t>(bytes)) + " x" + std::to_string(k);
            c.params = {{"direction", name},
                        {"host_memory", kind},
                        {"bytes", std::to_string(bytes)},
                        {"chunks", std::to_string(k)}};
            c.device = device_;
            // Host buffers count too where the device's memory is the host's.
            c.device_bytes = checked_mul<std::uint64_t>(static_cast<std::uint64_t>(bytes),
                                                        d2d || uses_host_memory(device_) ? 2 : 1,
                                                        "transfer: bytes of a case");
            c.size_key = "sizes";
            add_case(c, {direction, pinned, bytes, k});
          }
        }
      }
    }
  }

  /// The direction, not the dtype, picks the memory spaces: a case state of its own.
  void setup(const CaseSpec& spec) override {
    bytes_ = case_of(spec).bytes;
    state_ = make_copy(spec.device, case_of(spec));
  }

  Work work() const override { return {static_cast<double>(bytes_), 0.0}; }

  std::vector<Finding> summarize(const std::vector<CaseResult>& results) const override {
    std::vector<std::string> order;
    std::map<std::string, std::vector<const CaseResult*>> groups;
    for (const auto& r : results) {
      const std::string group = case_of(r.spec).group();
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
      const TransferCase& c = case_of(best->spec);
      peaks[group] = best->gbps;
      out.push_back({"", "peak_gbps_" + group, best->gbps, "GB/s",
                     "at " + io::human_bytes(static_cast<std::uint64_t>(c.bytes)) + " in " +
                         std::to_string(c.chunks) + " chunk(s)"});
      if (auto f = chunk_ratio(group, rows)) out.push_back(*f);
    }
    for (const char* dir : {"h2d", "d2h"}) {
      const auto pinned = peaks.find(std::string(dir) + "_pinned");
      const auto pageable = peaks.find(std::string(dir) + "_pageable");
      const std::string name = std::string("pinned_over_pageable_") + dir;
      if (pinned != peaks.end() && pageable != peaks.end() && pageable->second > 0) {
        out.push_back({"", name, pinned->second / pageable->second, "x", "peak bandwidth ratio"});
      } else if (!pinned_ && pageable != peaks.end()) {
        out.push_back({"", name, std::nullopt, "x", "no pinned host memory measured: " + pinned_note_});
      }
    }
    return out;
  }

 private:
  /// Time of the most chunks over the fewest at the largest size where both ran.
  std::optional<Finding> chunk_ratio(const std::string& group,
                                     const std::vector<const CaseResult*>& rows) const {
    std::map<std::int64_t, std::map<std::int64_t, double>> by_size;  // bytes -> chunks -> median s
    for (const auto* r : rows) {
      const TransferCase& c = case_of(r->spec);
      by_size[c.bytes][c.chunks] = r->seconds.median;
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
  bool pinned_ = false;
  std::string pinned_note_;
  std::int64_t bytes_ = 0;
};

MINIGPU_REGISTER_EXPERIMENT(TransferExperiment, "transfer",
                            "Host/device copy bandwidth: sizes, pageable vs pinned, many small vs one big",
                            "transfer_bandwidth.png");

}  // namespace minigpu
