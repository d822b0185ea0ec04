// Which ranks pair up for point-to-point measurements (transfer's rank cases), which links the
// pairs use, and what each pattern moves: communicator logic only, beside the communicator.
//   neighbour     (0,1), (2,3), ...: with several ranks per node these share a node (memory)
//   across_nodes  node 2j with node 2j+1, the k-th rank of one with the k-th rank of the other,
//                 so every pair's bytes cross the network between nodes
// `node_of` is node_of_ranks (comm/node.hpp): each rank's node, nodes numbered in rank order.
#pragma once

#include "comm/communicator.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace minigpu::comm {

/// The rank-to-rank patterns measured, as OSU's latency and bandwidth tests (pingpong, uni, bi)
/// and nccl-tests (allreduce) define them.
enum class RankPattern { pingpong, uni, bi, allreduce };

/// Bytes one repetition of `pattern` moves per pair of ranks: `messages` messages of `bytes`,
/// both ways for pingpong and bi; allreduce on `ranks` ranks: nccl-tests' bus bytes,
/// bytes·2(p−1)/p.
inline double pattern_bytes(RankPattern pattern, std::int64_t bytes, int messages, int ranks) {
  const auto n = static_cast<double>(bytes);
  switch (pattern) {
    case RankPattern::pingpong:
    case RankPattern::bi:
      return 2 * n * messages;
    case RankPattern::uni:
      return n * messages;
    case RankPattern::allreduce:
      return n * 2 * (ranks - 1) / ranks;
  }
  return n;
}

enum class RankPairing { neighbour, across_nodes };

inline const char* to_string(RankPairing p) {
  return p == RankPairing::neighbour ? "neighbour" : "across_nodes";
}

/// This rank's partner for point-to-point cases under `neighbour`, or kNoRank.
inline int rank_partner(int rank, int ranks) {
  const int partner = rank ^ 1;
  return partner < ranks ? partner : kNoRank;
}

/// `rank`'s partner under `pairing`, or kNoRank when it has none.
inline int pair_partner(RankPairing pairing, int rank, const std::vector<int>& node_of) {
  const int ranks = static_cast<int>(node_of.size());
  if (pairing == RankPairing::neighbour) return rank_partner(rank, ranks);
  const int node = node_of[static_cast<std::size_t>(rank)], other = node ^ 1;
  int index = 0;  // rank's position among its node's ranks
  for (int r = 0; r < rank; ++r) index += node_of[static_cast<std::size_t>(r)] == node ? 1 : 0;
  for (int r = 0; r < ranks; ++r) {
    if (node_of[static_cast<std::size_t>(r)] == other && index-- == 0) return r;
  }
  return kNoRank;
}

/// "intra-node", "inter-node" or "mixed" over the pairs `pairing` makes; "" when it makes none.
inline std::string pairing_link(RankPairing pairing, const std::vector<int>& node_of) {
  std::set<std::string> kinds;
  for (int r = 0; r < static_cast<int>(node_of.size()); ++r) {
    const int p = pair_partner(pairing, r, node_of);
    if (p == kNoRank) continue;
    kinds.insert(node_of[static_cast<std::size_t>(r)] == node_of[static_cast<std::size_t>(p)] ? "intra-node"
                                                                                              : "inter-node");
  }
  if (kinds.empty()) return "";
  return kinds.size() == 1 ? *kinds.begin() : "mixed";
}

/// How many pairs `pairing` makes.
inline int pair_count(RankPairing pairing, const std::vector<int>& node_of) {
  int with_partner = 0;
  for (int r = 0; r < static_cast<int>(node_of.size()); ++r)
    with_partner += pair_partner(pairing, r, node_of) == kNoRank ? 0 : 1;
  return with_partner / 2;
}

/// "spans N node(s)": what a collective over every rank crosses.
inline std::string node_span(const std::vector<int>& node_of) {
  const std::set<int> nodes(node_of.begin(), node_of.end());
  return "spans " + std::to_string(nodes.size()) + (nodes.size() == 1 ? " node" : " nodes");
}

}  // namespace minigpu::comm
