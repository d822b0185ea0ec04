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
// Between ranks (2 or more), as OSU and nccl-tests measure them (transfer/copy_states.hpp):
//   pingpong (latency), uni and bi (bandwidth, `messages` in flight), allreduce (busbw), each
//   over `rank_sizes`, direct (GPU-aware MPI or host memory) and/or staged through the host;
//   point-to-point pairs as `pairs` asks (comm/rank_pairs.hpp), each row's `link` saying
//   whether its pairs share a node or cross the network.
#include "ceilings/ceilings.hpp"
#include "comm/node.hpp"
#include "config/common_keys.hpp"
#include "core/backend.hpp"
#include "core/checked.hpp"
#include "engine/case_grid.hpp"
#include "engine/comm_keys.hpp"
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "experiments/transfer/copy_states.hpp"
#include "io/format.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace minigpu {
namespace {

using comm::RankPairing;

constexpr std::int64_t kMaxChunks = std::int64_t(1) << 20;
// 2^50 bytes (1 PiB) per copy is beyond any machine; the bound keeps byte sums exact.
constexpr std::int64_t kMaxBytes = std::int64_t(1) << 50;
// An MPI message counts elements in an int; a window of messages lands in one buffer.
constexpr std::int64_t kMaxMessageBytes = (std::int64_t(1) << 31) - 1;
constexpr std::int64_t kMaxMessages = 1024;
// "none" (alone) turns the rank-to-rank cases off.
const Names<std::optional<RankPattern>> kRankPatterns = {{"pingpong", RankPattern::pingpong},
                                                         {"uni", RankPattern::uni},
                                                         {"bi", RankPattern::bi},
                                                         {"allreduce", RankPattern::allreduce},
                                                         {"none", std::nullopt}};

enum class Direction { h2d, d2h, d2d };
const Names<Direction> kDirections = {
    {"h2d", Direction::h2d}, {"d2h", Direction::d2h}, {"d2d", Direction::d2d}};

struct TransferCase {
  Direction direction = Direction::h2d;
  bool pinned = false;
  std::int64_t bytes = 0, chunks = 1;
  /// Set for the cases between ranks (direction and pinned then mean nothing).
  std::optional<RankTransferCase> between_ranks;
  /// "h2d_pinned", "d2h_pageable", "d2d", "uni_staged": the group a finding is about.
  std::string group() const {
    if (between_ranks)
      return name_of(kRankPatterns, {between_ranks->pattern}) + "_" + comm::to_string(between_ranks->path) +
             (between_ranks->pairing == RankPairing::across_nodes ? "_across_nodes" : "");
    return direction == Direction::d2d ? "d2d"
                                       : name_of(kDirections, direction) + (pinned ? "_pinned" : "_pageable");
  }
};

/// An h2d copy into Dev from host memory Host, or a d2h copy the other way.
template <class Dev, class Host>
std::unique_ptr<CaseState> host_copy(const TransferCase& c) {
  if (c.direction == Direction::h2d) return std::make_unique<CopyState<Dev, Host>>(c.bytes, c.chunks);
  return std::make_unique<CopyState<Host, Dev>>(c.bytes, c.chunks);
}

/// The runtime device picks the compile-time memory space; the case picks the host side.
std::unique_ptr<CaseState> make_copy(Device device, const TransferCase& c, const comm::Communicator& comm) {
  return with_memory_space(device, [&](auto space) -> std::unique_ptr<CaseState> {
    using Dev = typename decltype(space)::type;
    if (c.between_ranks) {
      if (c.between_ranks->pattern == RankPattern::allreduce)
        return std::make_unique<AllreduceState<Dev>>(*c.between_ranks, comm);
      return std::make_unique<PeerState<Dev>>(*c.between_ranks, comm);
    }
    if (c.direction == Direction::d2d) return std::make_unique<CopyState<Dev, Dev>>(c.bytes, c.chunks);
    return c.pinned ? host_copy<Dev, PinnedHostMemSpace>(c) : host_copy<Dev, HostMemSpace>(c);
  });
}

class TransferExperiment : public CaseList<TransferCase>, public Analysis {
 public:
  void configure(ConfigNode& node, const RunContext& ctx) override {
    ctx_ = ctx;
    device_ = read_device(node);
    std::vector<std::int64_t> default_sizes;
    for (std::int64_t b = 1024; b <= (std::int64_t(1) << 30); b *= 4) default_sizes.push_back(b);
    const auto sizes = node.get_byte_list("sizes", default_sizes, kMaxBytes);
    const auto directions = node.get_named_list("directions", kDirections, {"h2d", "d2h", "d2d"});
    const auto kinds = node.get_named_list<bool>("host_memory", {{"pageable", false}, {"pinned", true}},
                                                 {"pageable", "pinned"});  // true: pinned
    const auto chunks = node.get_int_list("chunks", {1, 16, 256}, 1, kMaxChunks);
    host_kinds_ = kernels::host_memory_kinds(device_, std::count(kinds.begin(), kinds.end(), false) > 0,
                                             std::count(kinds.begin(), kinds.end(), true) > 0);
    for (const Direction direction : directions) {
      const std::string name = name_of(kDirections, direction);
      const bool d2d = direction == Direction::d2d;
      for (bool pinned : d2d ? std::vector<bool>{false} : host_kinds_.pinned) {
        for (auto k : chunks) {
          for (auto bytes : sizes) {
            if (k > bytes) continue;  // a chunk must hold at least one byte
            const std::string kind = d2d ? "-" : pinned ? "pinned" : "pageable";
            CaseSpec c = case_spec(
                name + (d2d ? "" : " " + kind) + " " + io::human_bytes(static_cast<std::uint64_t>(bytes)) +
                    " x" + std::to_string(k),
                {{"direction", name}, {"host_memory", kind}, {"bytes", bytes}, {"chunks", k}}, device_,
                DType::f32, copy_ceiling(device_, direction == Direction::h2d, direction == Direction::d2h),
                "sizes");
            // Host buffers count too where the device's memory is the host's.
            c.device_bytes = checked_mul<std::uint64_t>(static_cast<std::uint64_t>(bytes),
                                                        d2d || uses_host_memory(device_) ? 2 : 1,
                                                        "transfer: bytes of a case");
            c.work = {static_cast<double>(bytes), 0};
            add_case(c, {direction, pinned, bytes, k, std::nullopt});
          }
        }
      }
    }
    configure_between_ranks(node);
  }

  /// The rank-to-rank cases: every pattern, path and size (none on a single rank).
  void configure_between_ranks(ConfigNode& node) {
    std::vector<std::int64_t> default_sizes;
    for (std::int64_t b = 8; b <= (std::int64_t(1) << 23); b *= 32) default_sizes.push_back(b);
    auto patterns =
        node.get_named_list("rank_patterns", kRankPatterns, {"pingpong", "uni", "bi", "allreduce"});
    if (std::count(patterns.begin(), patterns.end(), std::nullopt)) {
      if (patterns.size() > 1) node.fail("rank_patterns", "'none' cannot be listed with patterns");
      patterns.clear();
    }
    const auto sizes = node.get_byte_list("rank_sizes", default_sizes);
    const int messages = static_cast<int>(node.get_int("messages", 8, 1, kMaxMessages));
    const auto pairings = node.get_named_list<RankPairing>(
        "pairs", {{"neighbour", RankPairing::neighbour}, {"across_nodes", RankPairing::across_nodes}},
        {"neighbour"});
    for (auto bytes : sizes) {
      if (bytes > kMaxMessageBytes / messages)
        node.fail("rank_sizes", "every size times `messages` must be below 2 GiB (one MPI message window)");
    }
    const std::vector<comm::CommPath> paths = read_comm_paths(node, device_);
    if (ctx_.ranks() < 2) return;
    // Collective, on every rank alike: the input is the same everywhere, so all get here.
    node_of_ = comm::node_of_ranks(ctx_.comm);
    for (const auto chosen : patterns) {
      const RankPattern pattern = *chosen;
      const bool reduce = pattern == RankPattern::allreduce;
      // Allreduce involves every rank, so pairings do not apply to it.
      for (const auto pairing : reduce ? std::vector<RankPairing>{RankPairing::neighbour} : pairings) {
        const std::string link = reduce ? comm::node_span(node_of_) : comm::pairing_link(pairing, node_of_);
        if (link.empty()) continue;  // across_nodes on one node: no pairs
        add_rank_cases(name_of(kRankPatterns, chosen), pattern, pairing, link, paths, sizes, messages);
      }
    }
  }

  /// One case per path and size of a pattern under one pairing.
  void add_rank_cases(const std::string& name, RankPattern pattern, RankPairing pairing,
                      const std::string& link, const std::vector<comm::CommPath>& paths,
                      const std::vector<std::int64_t>& sizes, int messages) {
    const bool reduce = pattern == RankPattern::allreduce;
    const bool across = pairing == RankPairing::across_nodes;
    for (const auto path : paths) {
      for (auto bytes : sizes) {
        if (reduce && bytes < 4) continue;  // not one float32
        const RankTransferCase rc{pattern,
                                  path,
                                  reduce ? bytes / 4 * 4 : bytes,
                                  reduce ? 1 : messages,
                                  pairing,
                                  comm::pair_partner(pairing, ctx_.rank(), node_of_)};
        const std::int64_t slots = reduce || pattern == RankPattern::pingpong ? 1 : messages;
        // Staged: bounded by the slower of the copies through pinned host memory.
        CaseSpec c = case_spec(
            name + " " + comm::to_string(path) + " " + io::human_bytes(static_cast<std::uint64_t>(rc.bytes)) +
                (reduce ? " p=" + std::to_string(ctx_.ranks()) : " x" + std::to_string(rc.messages)) +
                (across ? " across nodes" : ""),
            {{"direction", name},
             {"host_memory", "-"},
             {"bytes", rc.bytes},
             {"chunks", "1"},
             {"path", comm::to_string(path)},
             {"messages", rc.messages},
             {"pairs", reduce ? "-" : to_string(pairing)},
             {"link", link}},
            device_, DType::f32, copy_ceiling(device_, false, path == comm::CommPath::staged), "rank_sizes");
        c.device_bytes = checked_mul<std::uint64_t>(static_cast<std::uint64_t>(rc.bytes),
                                                    static_cast<std::uint64_t>(1 + slots),
                                                    "transfer: bytes of a rank-to-rank case");
        c.work = {comm::pattern_bytes(rc.pattern, rc.bytes, rc.messages, ctx_.ranks()), 0};
        c.this_rank_works = reduce || rc.partner != comm::kNoRank;
        // bi counts both directions of a pair, moved at once by both of its ranks: two copies'
        // worth of ceiling (a busbw and the other patterns count what one rank moves at a time).
        c.ceiling_scale = rc.pattern == RankPattern::bi ? 2 : 1;
        add_case(c, {Direction::d2d, false, rc.bytes, 1, rc});
      }
    }
  }

  /// The direction, not the dtype, picks the memory spaces: a case state of its own.
  void setup(const CaseSpec& spec) override { state_ = make_copy(spec.device, case_of(spec), ctx_.comm); }

  std::vector<Finding> findings(const std::vector<CaseResult>& results) const override {
    std::vector<Finding> out;
    std::map<std::string, const CaseResult*> peaks;
    for (const auto& [group, rows] :
         group_rows(results, [&](const CaseResult& r) { return case_of(r.spec).group(); })) {
      const CaseResult* best = best_row(rows, &CaseResult::gbps);
      const TransferCase& c = case_of(best->spec);
      peaks[group] = best;
      if (c.between_ranks) {
        for (auto& f : between_ranks_findings(group, rows, *best)) out.push_back(f);
        continue;
      }
      // Without a GPU "h2d" is a copy within host memory, not over PCIe: said so.
      const std::string where = uses_host_memory(device_) ? " on cpu: a copy within host memory" : "";
      out.push_back(row_finding("peak_gbps_" + group, best->gbps, "GB/s", *best,
                                "at " + io::human_bytes(static_cast<std::uint64_t>(c.bytes)) + " in " +
                                    std::to_string(c.chunks) + " chunk(s)" + where,
                                true));
      if (auto f = chunk_ratio(group, rows)) out.push_back(*f);
    }
    if (ctx_.ranks() < 2) out.push_back(needs_ranks("rank_to_rank", "GB/s", "rank-to-rank cases", 2, 1));
    for (const char* dir : {"h2d", "d2h"}) {
      const auto pinned = peaks.find(std::string(dir) + "_pinned");
      const auto pageable = peaks.find(std::string(dir) + "_pageable");
      const std::string name = std::string("pinned_over_pageable_") + dir;
      if (pinned != peaks.end() && pageable != peaks.end() && pageable->second->gbps > 0) {
        out.push_back(row_finding(name, pinned->second->gbps / pageable->second->gbps, "x", *pinned->second,
                                  "peak bandwidth ratio")
                          .drawn_from({pageable->second}));
      } else if (!host_kinds_.has_pinned() && pageable != peaks.end()) {
        out.push_back({"", name, std::nullopt, "x", "no pinned host memory measured: " + host_kinds_.note});
      }
    }
    return out;
  }

 private:
  /// Peak bandwidth (busbw for allreduce) and, for ping-pong, the one-way latency of the
  /// smallest message.
  std::vector<Finding> between_ranks_findings(const std::string& group, const ResultRows& rows,
                                              const CaseResult& best) const {
    const RankTransferCase& rc = *case_of(best.spec).between_ranks;
    const std::string at = io::human_bytes(static_cast<std::uint64_t>(rc.bytes));
    const std::string pairs = std::to_string(comm::pair_count(rc.pairing, node_of_)) + " " +
                              to_string(rc.pairing) + " pair(s) of ranks (" + best.spec.param("link") +
                              ") on " + describe(device_);
    if (rc.pattern == RankPattern::allreduce) {
      const int p = ctx_.ranks();
      const double algbw = best.gbps * p / (2.0 * (p - 1));
      return {row_finding("peak_busbw_gbps_" + group, best.gbps, "GB/s", best,
                          "bus bandwidth = algbw·2(p-1)/p at " + at + ", p=" + std::to_string(p) + ", " +
                              best.spec.param("link") + " (algbw " + io::significant(algbw) + " GB/s)",
                          true)};
    }
    const std::string how = rc.pattern == RankPattern::pingpong
                                ? std::to_string(rc.messages) + " round trips"
                                : std::to_string(rc.messages) + " message(s) in flight";
    std::vector<Finding> out{row_finding("peak_gbps_" + group, best.gbps, "GB/s", best,
                                         "per pair at " + at + ", " + how + "; " + pairs, true)};
    if (rc.pattern == RankPattern::pingpong) {
      const CaseResult* smallest =
          *std::min_element(rows.begin(), rows.end(), [&](const CaseResult* a, const CaseResult* b) {
            return case_of(a->spec).bytes < case_of(b->spec).bytes;
          });
      const RankTransferCase& sc = *case_of(smallest->spec).between_ranks;
      out.push_back(row_finding(
          "latency_us_" + group, 1e6 * smallest->seconds.median / (2.0 * sc.messages), "us", *smallest,
          "one way (half a round trip) at " + io::human_bytes(static_cast<std::uint64_t>(sc.bytes)) +
              ", median of " + std::to_string(sc.messages) + " round trips; " + pairs));
    }
    return out;
  }

  /// Time of the most chunks over the fewest at the largest size where both ran.
  std::optional<Finding> chunk_ratio(const std::string& group, const ResultRows& rows) const {
    const auto by_size = rows_by_mode(
        rows, [&](const CaseResult& r) { return case_of(r.spec).bytes; },
        [&](const CaseResult& r) { return case_of(r.spec).chunks; });
    for (auto it = by_size.rbegin(); it != by_size.rend(); ++it) {
      const auto& [few, one] = *it->second.begin();
      const auto& [many, split] = *it->second.rbegin();
      if (it->second.size() < 2 || !has_median(one)) continue;
      return ratio_finding("many_small_over_one_big_" + group, *split, *one,
                           io::human_bytes(static_cast<std::uint64_t>(it->first)) + " as " +
                               std::to_string(many) + " copies vs " + std::to_string(few) + ": " +
                               io::significant(split->seconds.median) + " s vs " +
                               io::significant(one->seconds.median) + " s");
    }
    return std::nullopt;
  }

  Device device_;
  kernels::HostMemoryKinds host_kinds_;
  RunContext ctx_;
  std::vector<int> node_of_;  // each rank's node (comm::node_of_ranks), with 2 or more ranks
};

}  // namespace

MINIGPU_REGISTER_EXPERIMENT(
    TransferExperiment,
    {"transfer",
     "Host/device copy bandwidth: sizes, pageable vs pinned, many small vs one big",
     "what does moving data cost?",
     "transfer_bandwidth.png",
     {{"peak_gbps_<group>", "GB/s",
       "best bandwidth over the sizes of one direction and host memory (h2d_pinned, d2d, ...), or per rank "
       "pair of one pattern and path (pingpong_direct, uni_staged, ...)"},
      {"many_small_over_one_big_<group>", "x", "time of k small copies / one copy of the same bytes"},
      {"pinned_over_pageable_<direction>", "x", "peak bandwidth from pinned / from pageable host memory"},
      {"latency_us_pingpong_<path>", "us", "one-way time (half a round trip) of the smallest message"},
      {"peak_busbw_gbps_allreduce_<path>", "GB/s",
       "nccl-tests' bus bandwidth of the allreduce, algbw·2(p−1)/p"},
      {"rank_to_rank", "GB/s", "no value: a run on one rank has no rank-to-rank cases (the note says so)"}},
     "sizes: [1KiB], chunks: [1], rank_sizes: [1KiB], messages: 2, device: cpu"});

}  // namespace minigpu
