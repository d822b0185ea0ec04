// Rank-to-rank transfers: the MPI windows and allreduce over Views (both paths), then the
// transfer experiment's rank cases, their byte accounting and findings, at 1, 2 and 3 ranks
// (a third rank has no partner and idles in point-to-point cases).
#include "comm/point_to_point.hpp"
#include "comm/rank_pairs.hpp"
#include "core/backend.hpp"
#include "core/host_pages.hpp"
#include "experiment_harness.hpp"
#include "experiments/transfer/copy_states.hpp"
#include "kernels/byte_copy.hpp"
#include "test_support.hpp"

#include <map>

namespace minigpu {
namespace {

using HostBytes = Kokkos::View<unsigned char*, HostMemSpace>;

class RankWindow : public ::testing::TestWithParam<comm::CommPath> {};
INSTANTIATE_TEST_SUITE_P(Paths, RankWindow, ::testing::Values(comm::CommPath::direct, comm::CommPath::staged),
                         [](const auto& param_info) { return comm::to_string(param_info.param); });

TEST_P(RankWindow, EveryMessageLandsInItsOwnSlot) {
  const auto world = comm::Communicator::world();
  const int me = world.rank(), peer = comm::rank_partner(me, world.size());
  if (peer == comm::kNoRank) GTEST_SKIP() << "rank " << me << " has no partner";
  const std::int64_t n = 1001;
  const int messages = 5;
  HostBytes send("test::send", n), recv("test::recv", n * messages);
  kernels::fill_pattern(send, 100 + me);
  comm::Transport<unsigned char> t(GetParam(), n * (messages + 1), "test::stage");
  comm::exchange_window(send, peer, recv, peer, messages, world, t);
  for (int m = 0; m < messages; ++m) {
    EXPECT_EQ(kernels::find_pattern_mismatch(recv.data() + m * n, n, 100 + peer), -1) << "slot " << m;
  }
  // One way: only the receiver's buffer changes.
  HostBytes fresh("test::fresh", n * messages);
  const bool sender = me < peer;
  comm::exchange_window(send, sender ? peer : comm::kNoRank, fresh, sender ? comm::kNoRank : peer, messages,
                        world, t);
  for (int m = 0; m < messages; ++m) {
    const std::int64_t bad = kernels::find_pattern_mismatch(fresh.data() + m * n, n, 100 + peer);
    EXPECT_EQ(bad == -1, !sender) << "slot " << m;
  }
}

TEST_P(RankWindow, PingPongAnswersWithThePeersBufferAndOneWayFillsOnlyThePeer) {
  const auto world = comm::Communicator::world();
  const int me = world.rank(), peer = comm::rank_partner(me, world.size());
  if (peer == comm::kNoRank) GTEST_SKIP() << "rank " << me << " has no partner";
  const std::int64_t n = 777;
  const int messages = 3;
  const bool leading = me < peer;
  const int leader = leading ? me : peer;
  HostBytes send("test::send", n), recv("test::recv", n);
  kernels::fill_pattern(send, 200 + me);
  comm::Transport<unsigned char> t(GetParam(), n * (messages + 1), "test::stage");
  // After the round trips each holds the other's bytes: the partner answers with its own buffer
  // (hpcc's loop), not with the message it received.
  comm::ping_pong(send, recv, peer, leading, messages, world, t);
  EXPECT_EQ(kernels::find_pattern_mismatch(recv.data(), n, 200 + peer), -1);
  HostBytes fresh("test::fresh", n * messages);
  comm::stream_one_way(send, fresh, peer, leading, messages, world, t);
  for (int m = 0; m < messages; ++m) {
    const std::int64_t bad = kernels::find_pattern_mismatch(fresh.data() + m * n, n, 200 + leader);
    EXPECT_EQ(bad == -1, !leading) << "slot " << m << ": only the partner receives";
  }
  // A rank without a partner does nothing and returns.
  comm::ping_pong(send, fresh, comm::kNoRank, false, messages, world, t);
}

// Host message buffers of 256 KiB and more start on a 2 MiB boundary (so that the kernel can back
// them with huge pages), hold n zeroed elements and keep their label.
TEST(MessageBuffers, LargeHostBuffersStartOnAHugePageBoundaryZeroed) {
  const std::int64_t n = 2000000 / sizeof(float);
  const auto big = huge_page_view<float, HostMemSpace>("test::message", n);
  ASSERT_EQ(static_cast<std::int64_t>(big.extent(0)), n);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data()) % kHugePageBytes, 0u);
  EXPECT_EQ(big.label(), "test::message");
  for (std::int64_t i = 0; i < n; i += 4093) ASSERT_EQ(big(i), 0.0f) << "element " << i;
  EXPECT_EQ(big(n - 1), 0.0f);
  const auto small = huge_page_view<float, HostMemSpace>("test::small", 100);
  EXPECT_EQ(small.extent(0), 100u);
  EXPECT_EQ(small.label(), "test::small");
  // With an offset (STREAM's, for the ceilings' triad), that many elements past the boundary, the
  // last of the n still inside the allocation and zeroed.
  const auto moved = huge_page_view<float, HostMemSpace>("test::moved", n, 256);
  ASSERT_EQ(static_cast<std::int64_t>(moved.extent(0)), n);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(moved.data()) % kHugePageBytes, 256 * sizeof(float));
  for (std::int64_t i = 0; i < n; i += 4093) ASSERT_EQ(moved(i), 0.0f) << "element " << i;
  EXPECT_EQ(moved(n - 1), 0.0f);
}

TEST_P(RankWindow, AllreduceSumsEveryRankAndKeepsTheInput) {
  const auto world = comm::Communicator::world();
  const std::int64_t n = 777;
  Kokkos::View<float*, HostMemSpace> send("test::send", n), recv("test::recv", n);
  for (std::int64_t i = 0; i < n; ++i) send(i) = static_cast<float>((i % 5) + 10 * world.rank());
  comm::Transport<float> t(GetParam(), 2 * n, "test::stage");
  for (int repeat = 0; repeat < 2; ++repeat) comm::allreduce_sum(send, recv, world, t);
  const int p = world.size();
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(recv(i), static_cast<float>(p * (i % 5) + 10 * p * (p - 1) / 2)) << "element " << i;
    ASSERT_EQ(send(i), static_cast<float>((i % 5) + 10 * world.rank())) << "input changed at " << i;
  }
}

std::map<std::string, std::vector<CaseResult>> by_pattern(const RunOutcome& out) {
  std::map<std::string, std::vector<CaseResult>> rows;
  for (const auto& r : out.results) {
    if (!r.spec.param("path").empty()) rows[r.spec.param("direction")].push_back(r);
  }
  return rows;
}

TEST(RankTransferRun, PatternsVerifyAndCountTheirBytes) {
  const int p = comm::Communicator::world().size();
  const RunOutcome out = testing::run_yaml(
      "run:\n  warmups: 0\n  repetitions: 3\nexperiments:\n  - name: transfer\n    device: cpu\n"
      "    sizes: [1KiB]\n    chunks: [1]\n    directions: [d2d]\n    rank_sizes: [6, 3KiB]\n    messages: "
      "4\n");
  EXPECT_TRUE(out.all_verified);
  const auto rows = by_pattern(out);
  if (p == 1) {
    EXPECT_TRUE(rows.empty()) << "no partner on a single rank";
    const Finding* none = testing::find_finding(out.findings, "rank_to_rank");
    ASSERT_NE(none, nullptr);
    EXPECT_FALSE(none->value.has_value());
    EXPECT_NE(none->note.find("2 or more ranks"), std::string::npos) << none->note;
    return;
  }
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& [pattern, cases] : rows) {
    // 6 bytes is less than two floats: allreduce rounds it down to one.
    ASSERT_EQ(cases.size(), 2u) << pattern;
    for (const auto& r : cases) {
      EXPECT_TRUE(r.check.passed) << r.spec.label << ": " << r.check.detail;
      EXPECT_EQ(r.spec.param("path"), "direct") << "host memory goes to MPI as it is";
      const double n = std::stod(r.spec.param("bytes"));
      const double expected = pattern == "uni"         ? n * 4
                              : pattern == "allreduce" ? n * 2 * (p - 1) / p
                                                       : 2 * n * 4;
      EXPECT_DOUBLE_EQ(r.work.bytes, expected) << r.spec.label;
      // bi's bytes are both ranks' at once, so its share is of two copies' ceiling.
      EXPECT_EQ(r.spec.ceiling_scale, pattern == "bi" ? 2 : 1) << r.spec.label;
    }
  }
  EXPECT_EQ(rows.at("allreduce").front().spec.param("bytes"), "4");
  const auto& pings = rows.at("pingpong");
  const Finding* latency = testing::find_finding(out.findings, "latency_us_pingpong_direct");
  ASSERT_NE(latency, nullptr);
  EXPECT_DOUBLE_EQ(latency->value.value_or(-1), 1e6 * pings.front().seconds.median / 8)
      << "half of 4 round trips";
  const Finding* busbw = testing::find_finding(out.findings, "peak_busbw_gbps_allreduce_direct");
  ASSERT_NE(busbw, nullptr);
  EXPECT_EQ(busbw->unit, "GB/s");
  EXPECT_GT(busbw->value.value_or(0), 0);
}

TEST(RankTransferRun, StagedPathWhenAsked) {
  if (comm::Communicator::world().size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const RunOutcome out = testing::run_yaml(
      "run:\n  warmups: 0\n  repetitions: 1\nexperiments:\n  - name: transfer\n    device: cpu\n"
      "    sizes: [1KiB]\n    chunks: [1]\n    directions: [d2d]\n    rank_sizes: [2KiB]\n"
      "    rank_patterns: [bi, allreduce]\n    gpu_aware_mpi: off\n");
  EXPECT_TRUE(out.all_verified);
  const auto rows = by_pattern(out);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& [pattern, cases] : rows) EXPECT_EQ(cases.at(0).spec.param("path"), "staged") << pattern;
}

// Placements written out by hand: {node of rank 0, node of rank 1, ...}.
TEST(RankPairs, AcrossNodesPairsTheSameLocalIndexOnTheNextNode) {
  const std::vector<int> two_by_two = {0, 0, 1, 1};
  EXPECT_EQ(comm::pair_partner(comm::RankPairing::neighbour, 0, two_by_two), 1);
  EXPECT_EQ(comm::pair_partner(comm::RankPairing::neighbour, 3, two_by_two), 2);
  EXPECT_EQ(comm::pair_partner(comm::RankPairing::across_nodes, 0, two_by_two), 2);
  EXPECT_EQ(comm::pair_partner(comm::RankPairing::across_nodes, 1, two_by_two), 3);
  EXPECT_EQ(comm::pair_partner(comm::RankPairing::across_nodes, 3, two_by_two), 1);
  EXPECT_EQ(comm::pairing_link(comm::RankPairing::neighbour, two_by_two), "intra-node");
  EXPECT_EQ(comm::pairing_link(comm::RankPairing::across_nodes, two_by_two), "inter-node");
  EXPECT_EQ(comm::node_span(two_by_two), "spans 2 nodes");
  // Three nodes, uneven: node 2 has no partner node; node 1's second rank none on node 0.
  const std::vector<int> uneven = {0, 1, 1, 2};
  EXPECT_EQ(comm::pair_partner(comm::RankPairing::across_nodes, 0, uneven), 1);
  EXPECT_EQ(comm::pair_partner(comm::RankPairing::across_nodes, 2, uneven), comm::kNoRank);
  EXPECT_EQ(comm::pair_partner(comm::RankPairing::across_nodes, 3, uneven), comm::kNoRank);
  EXPECT_EQ(comm::pairing_link(comm::RankPairing::neighbour, uneven), "inter-node")
      << "(0,1) and (2,3) both cross";
  EXPECT_EQ(comm::pairing_link(comm::RankPairing::neighbour, std::vector<int>{0, 0, 0, 1}), "mixed");
  const std::vector<int> one_node = {0, 0, 0};
  EXPECT_EQ(comm::pairing_link(comm::RankPairing::across_nodes, one_node), "") << "no pairs on one node";
  EXPECT_EQ(comm::pairing_link(comm::RankPairing::neighbour, one_node), "intra-node");
  EXPECT_EQ(comm::node_span(one_node), "spans 1 node");
  EXPECT_EQ(comm::pair_count(comm::RankPairing::across_nodes, two_by_two), 2);
  EXPECT_EQ(comm::pair_count(comm::RankPairing::across_nodes, uneven), 1) << "only ranks 0 and 1";
  EXPECT_EQ(comm::pair_count(comm::RankPairing::neighbour, one_node), 1) << "rank 2 idles";
  EXPECT_EQ(comm::pair_count(comm::RankPairing::across_nodes, one_node), 0);
}

TEST(RankTransferRun, RowsSayTheirLink) {
  const int p = comm::Communicator::world().size();
  if (p < 2) GTEST_SKIP() << "needs 2 ranks";
  const RunOutcome out = testing::run_yaml(
      "run:\n  warmups: 0\n  repetitions: 1\nexperiments:\n  - name: transfer\n    device: cpu\n"
      "    sizes: [1KiB]\n    chunks: [1]\n    directions: [d2d]\n    rank_sizes: [64]\n"
      "    pairs: [neighbour, across_nodes]\n");
  EXPECT_TRUE(out.all_verified);
  // The test runs on one host: every rank shares a node, so across_nodes has no pairs.
  int rank_rows = 0;
  for (const auto& r : out.results) {
    if (r.spec.param("path").empty()) continue;
    ++rank_rows;
    EXPECT_EQ(r.spec.param("pairs"), r.spec.param("direction") == "allreduce" ? "-" : "neighbour")
        << r.spec.label;
    EXPECT_EQ(r.spec.param("link"), r.spec.param("direction") == "allreduce" ? "spans 1 node" : "intra-node")
        << r.spec.label;
  }
  EXPECT_EQ(rank_rows, 4);
}

TEST(RankTransferConfig, BadValuesNameTheirKey) {
  testing::expect_key_error("transfer", "    pairs: [sideways]\n", "pairs");
  testing::expect_key_error("transfer", "    rank_sizes: [0]\n", "rank_sizes");
  testing::expect_key_error("transfer", "    rank_patterns: [broadcast]\n", "rank_patterns");
  testing::expect_key_error("transfer", "    rank_patterns: [uni, none]\n", "rank_patterns", "'none'");
  testing::expect_key_error("transfer", "    messages: 0\n", "messages");
  testing::expect_key_error("transfer", "    messages: 1025\n", "messages");
  testing::expect_key_error("transfer", "    rank_sizes: [1GiB]\n    messages: 2\n", "rank_sizes", "2 GiB");
  testing::expect_key_error("transfer", "    gpu_aware_mpi: maybe\n", "gpu_aware_mpi");
}

}  // namespace
}  // namespace minigpu
