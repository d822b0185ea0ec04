// perfmodel: every cost formula against arithmetic done by hand (written out beside each
// expectation), the node-crossing link choice, and the properties the formulas promise
// (overlap never slower, p = 1 free of communication, 2.5D below SUMMA at scale).
#include "distributed/scaling_model.hpp"
#include "kernels/block_partition.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace minigpu::perfmodel {
namespace {

constexpr double kRel = 1e-12;

// intra: 1 µs + 1 ns/byte; inter: 10 µs + 10 ns/byte; 4 GPUs per node; 1 GFLOP/s GEMMs.
Machine toy(int gpus_per_node = 4, double rate = 1e9) {
  Machine m;
  m.intra_node = {1e-6, 1e-9, "toy intra"};
  m.inter_node = {1e-5, 1e-8, "toy inter"};
  m.gpus_per_node = gpus_per_node;
  m.gemm_seconds = constant_rate(rate);
  return m;
}

void expect_close(double got, double want) { EXPECT_NEAR(got, want, kRel * std::abs(want) + 1e-300); }

TEST(ScalingModel, ConstantRateIsTwoMnkOverRate) {
  expect_close(constant_rate(1e9)(10, 20, 30), 2.0 * 10 * 20 * 30 / 1e9);  // 1.2e-5 s
  EXPECT_THROW(constant_rate(0), std::invalid_argument);
}

TEST(ScalingModel, BroadcastTakesTheCheaperOfBinomialAndScatterAllgather) {
  const Link l{1e-6, 1e-9, "toy"};
  // q=4, 100 B: binomial 2·(1e-6 + 1e-7) = 2.2e-6; scatter+allgather (2+3)·1e-6 + 2·¾·1e-7 = 5.15e-6
  expect_close(broadcast_seconds(l, 4, 100), 2.2e-6);
  // q=4, 1e6 B: binomial 2·(1e-6 + 1e-3) = 2.002e-3; scatter+allgather 5e-6 + 1.5e-3 = 1.505e-3
  expect_close(broadcast_seconds(l, 4, 1e6), 1.505e-3);
  // q=5: ⌈log2 5⌉ = 3; binomial 3.003e-3; scatter+allgather (3+4)·1e-6 + 2·0.8·1e-3 = 1.607e-3
  expect_close(broadcast_seconds(l, 5, 1e6), 1.607e-3);
  EXPECT_EQ(broadcast_seconds(l, 1, 1e6), 0.0);
}

TEST(ScalingModel, RingAllgather) {
  const Link l{1e-6, 1e-9, "toy"};
  // q=4, N=4e6 B: 3·1e-6 + ¾·4e6·1e-9 = 3.003e-3
  expect_close(allgather_seconds(l, 4, 4e6), 3.003e-3);
  EXPECT_EQ(allgather_seconds(l, 1, 4e6), 0.0);
}

TEST(ScalingModel, CollectiveSpanningNodesPaysTheInterNodeLink) {
  const Machine m = toy(4);
  EXPECT_EQ(&link_between(m, 0, 1, 4), &m.intra_node);  // ranks 0-3: node 0
  EXPECT_EQ(&link_between(m, 2, 1, 4), &m.inter_node);  // ranks 2-5: nodes 0 and 1
  EXPECT_EQ(&link_between(m, 1, 4, 2), &m.inter_node);  // ranks 1, 5
  EXPECT_EQ(&link_between(m, 0, 2, 2), &m.intra_node);  // ranks 0, 2
  EXPECT_EQ(&link_between(m, 7, 1, 1), &m.intra_node);  // alone: no message at all
}

TEST(ScalingModel, RowIsAllgatherThenTheLargestRowBlock) {
  // n=10, p=3, 8 B: allgather 2·1e-6 + ⅔·800·1e-9 = 2.5333e-6; rows ⌈10/3⌉ = 4: 2·4·10·10/1e9 = 8e-7
  const Estimate e = estimate_row(toy(), 10, 3, 8);
  expect_close(e.comm_s, 2e-6 + 2.0 / 3.0 * 800e-9);
  expect_close(e.compute_s, 8e-7);
  expect_close(e.total_s, e.comm_s + 8e-7);
  EXPECT_EQ(e.comm_exposed_s, e.comm_s);
  // p=8 over 4-GPU nodes: inter link, n=16: 7·1e-5 + ⅞·2048·1e-8 = 8.792e-5; 2·2·16·16/1e9 = 1.024e-6
  const Estimate x = estimate_row(toy(), 16, 8, 8);
  expect_close(x.comm_s, 8.792e-5);
  expect_close(x.compute_s, 1.024e-6);
}

TEST(ScalingModel, SummaBlockingSumsEveryPanel) {
  // n=8 on 2×2 (one node), panels {4, 4}, 8 B: A and B panels 4·4·8 = 128 B, q=2:
  // binomial 1e-6 + 128e-9 = 1.128e-6 < scatter+allgather 2e-6 + 128e-9. Per panel 2.256e-6;
  // GEMM 4×4×4: 128/1e9 = 1.28e-7.
  const Estimate e = estimate_summa(toy(), 8, 2, 2, {4, 4}, false, 8);
  expect_close(e.comm_s, 4.512e-6);
  expect_close(e.compute_s, 2.56e-7);
  expect_close(e.total_s, 4.768e-6);
  EXPECT_EQ(e.comm_exposed_s, e.comm_s);
}

TEST(ScalingModel, SummaOverlapHidesLaterPanelsBehindGemm) {
  // comm0 + max(g0, comm1) + max(g1, 0) = 2.256e-6 + 2.256e-6 + 1.28e-7 = 4.64e-6
  const Estimate e = estimate_summa(toy(), 8, 2, 2, {4, 4}, true, 8);
  expect_close(e.total_s, 4.64e-6);
  expect_close(e.comm_s, 4.512e-6);
  expect_close(e.comm_exposed_s, 4.64e-6 - 2.56e-7);
}

TEST(ScalingModel, OverlapHidesNothingWhereTheCoresCopy) {
  // Host memory within a node: the MPI library's copies take the computing cores, so the
  // overlapped schedule costs what the blocking one does (4.768e-6 above); what waits is what
  // the double-buffered schedule leaves exposed (4.64e-6 - 2.56e-7, as above).
  Machine m = toy();
  m.comm_takes_cores = true;
  const Estimate e = estimate_summa(m, 8, 2, 2, {4, 4}, true, 8);
  expect_close(e.total_s, 4.768e-6);
  expect_close(e.comm_exposed_s, 4.64e-6 - 2.56e-7);
}

TEST(ScalingModel, SummaColumnAcrossNodesUsesTheInterNodeLink) {
  // 2 GPUs per node: rows {0,1} and {2,3} stay on a node, columns {0,2} and {1,3} do not.
  // A: 1.128e-6 (intra); B: binomial 1e-5 + 128·1e-8 = 1.128e-5 (inter). Two panels.
  const Estimate e = estimate_summa(toy(2), 8, 2, 2, {4, 4}, false, 8);
  expect_close(e.comm_s, 2 * (1.128e-6 + 1.128e-5));
  // 3 GPUs per node, 1×4: the one row {0..3} spans nodes 0 and 1: inter for A.
  // A: 8·2·8 = 128 B per panel of 2 among 4: binomial 2·(1e-5 + 1.28e-6) = 2.256e-5,
  // scatter+allgather (2+3)·1e-5 + 1.5·1.28e-6 = 5.192e-5; four panels.
  const Estimate r = estimate_summa(toy(3), 8, 1, 4, {2, 2, 2, 2}, false, 8);
  expect_close(r.comm_s, 4 * 2.256e-5);
}

TEST(ScalingModel, SummaUsesTheLargestBlockOfAnUnevenPartition) {
  // n=10 on 3×1: mr = ⌈10/3⌉ = 4, nc = 10; one panel of 10: GEMM 2·4·10·10/1e9 = 8e-7;
  // no row broadcast (pc=1); B panel 10·10·8 = 800 B among 3 (ranks 0,1,2; one node):
  // binomial 2·(1e-6 + 8e-7) = 3.6e-6, scatter+allgather (2+2)·1e-6 + 2·⅔·8e-7 = 5.0667e-6.
  const Estimate e = estimate_summa(toy(), 10, 3, 1, {10}, false, 8);
  expect_close(e.compute_s, 8e-7);
  expect_close(e.comm_s, 3.6e-6);
}

TEST(ScalingModel, OverlapIsNeverSlowerAndMatchesItsLimits) {
  const std::vector<std::int64_t> widths(8, 32);  // n = 256
  for (double rate : {1e3, 1e9, 1e12, 1e18}) {
    for (int gpn : {1, 4}) {
      const Machine m = toy(gpn, rate);
      const Estimate b = estimate_summa(m, 256, 4, 2, widths, false, 8);
      const Estimate o = estimate_summa(m, 256, 4, 2, widths, true, 8);
      EXPECT_LE(o.total_s, b.total_s * (1 + kRel));
      EXPECT_GE(o.total_s, std::max(o.compute_s, o.comm_s) * (1 - kRel));
      expect_close(o.compute_s, b.compute_s);
      expect_close(o.comm_s, b.comm_s);
    }
  }
  // Compute-bound (1 kFLOP/s): only panel 0's broadcasts show: total = comm0 + Σ gemm.
  const Machine slow = toy(4, 1e3);
  const Estimate c = estimate_summa(slow, 256, 4, 2, widths, true, 8);
  // eight equal panels; total − Σ gemm cancels ~4000 s down to ~1e-4 s: tolerance of the total
  EXPECT_NEAR(c.comm_exposed_s, c.comm_s / 8, 1e-15 * c.total_s);
  // Comm-bound (1e18 flop/s): only the last GEMM shows: total = Σ comm + g_last.
  const Machine fast = toy(4, 1e18);
  const Estimate f = estimate_summa(fast, 256, 4, 2, widths, true, 8);
  expect_close(f.total_s, f.comm_s + f.compute_s / 8);
}

TEST(ScalingModel, OneRankCommunicatesNothing) {
  const Machine m = toy();
  const double alone = 2.0 * 64 * 64 * 64 / 1e9;
  for (const Estimate& e :
       {estimate_row(m, 64, 1, 8), estimate_summa(m, 64, 1, 1, {16, 16, 32}, false, 8),
        estimate_summa(m, 64, 1, 1, {16, 16, 32}, true, 8), estimate_25d_bound(m, 64, 1, 8)}) {
    EXPECT_EQ(e.comm_s, 0.0);
    EXPECT_EQ(e.comm_exposed_s, 0.0);
    expect_close(e.total_s, alone);
  }
}

// The reference PBLAS's PB_CpgemmAB, read in its source: one product where no operand spans
// two processes, else steps of PILAENV's 32 columns however large the blocks are.
TEST(ScalingModel, PblasStepsOfK) {
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(pblas_k_steps(2048, 64, 1, 1), V{2048});  // one rank: one local product
  EXPECT_EQ(pblas_k_steps(48, 64, 1, 2), V{48});      // k within A's first block
  EXPECT_EQ(pblas_k_steps(64, 64, 2, 1), V{64});      // ... or B's
  EXPECT_EQ(pblas_k_steps(100, 64, 1, 2), (V{32, 32, 32, 4}));
  EXPECT_EQ(pblas_k_steps(100, 64, 2, 1), (V{32, 32, 32, 4}));
  EXPECT_EQ(pblas_k_steps(96, 16, 2, 2), (V{32, 32, 32}));  // smaller blocks: still 32 a step
  const V p2 = pblas_k_steps(2048, 128, 1, 2);
  EXPECT_EQ(p2.size(), 64u);
  EXPECT_EQ(p2.front(), 32);
  EXPECT_EQ(p2.back(), 32);
  EXPECT_TRUE(pblas_k_steps(0, 64, 1, 2).empty());
  // As estimate_summa's panels, 1 × 2 ranks at n = 64: two steps, each a broadcast of A's
  // 64 × 32 float64 panel along the row (1 µs + 16384 B · 1 ns) and a 64 × 32 × 32 product of
  // 131072 flop at 1 GFLOP/s.
  const Estimate e = estimate_summa(toy(), 64, 1, 2, pblas_k_steps(64, 32, 1, 2), false, 8);
  expect_close(e.comm_s, 2 * (1e-6 + 16384e-9));
  expect_close(e.compute_s, 2 * 131072e-9);
}

TEST(ScalingModel, ReplicationIsTheLargestCubeRoot) {
  EXPECT_EQ(replication_25d(1), 1);
  EXPECT_EQ(replication_25d(7), 1);
  EXPECT_EQ(replication_25d(8), 2);
  EXPECT_EQ(replication_25d(26), 2);
  EXPECT_EQ(replication_25d(27), 3);
  EXPECT_EQ(replication_25d(511), 7);
  EXPECT_EQ(replication_25d(512), 8);
}

TEST(ScalingModel, TwoAndAHalfDWithTheStatedConstants) {
  // p=64 on 8-GPU nodes, c=4: layers of 16 ranks, rows of 4. n=64, 8 B: blocks 64²·4/64·8 = 2048 B.
  // Cannon √(64/64) = 1 step: A along a row (4 ranks in a row of one node: intra)
  // 1e-6 + 2048e-9 = 3.048e-6, B down a column (ranks j, j+4, j+8, j+12: two nodes, inter)
  // 1e-5 + 2048e-8 = 3.048e-5; replicate A, B and reduce C across layers (ranks r, r+16, …:
  // inter): 3·(⌈log2 4⌉·1e-5 + 2048e-8) = 1.2144e-4.
  // compute: 64·√(4/64) = 16, k = 64/4 = 16: 2·16³/1e9 = 8.192e-6.
  const Estimate e = estimate_25d_bound(toy(8), 64, 64, 8);
  expect_close(e.comm_s, 3.048e-6 + 3.048e-5 + 1.2144e-4);
  expect_close(e.compute_s, 8.192e-6);
  expect_close(e.total_s, e.comm_s + e.compute_s);
}

TEST(ScalingModel, TwoAndAHalfDBelowSummaAtScale) {
  // Not at p=64 (c=4) on these links: replicating and reducing 3n²c/p = 0.19n² elements
  // across nodes outweighs what c=4 saves (2n²/√(cp) = 0.125n² against SUMMA's 0.22n² inter-node).
  const std::int64_t n = 32768;
  for (int p : {128, 256, 512}) {
    const Machine m = toy(8, 1e13);
    const auto grid = kernels::square_grid(p);
    const auto cuts = kernels::panel_boundaries(kernels::block_partition(n, grid.cols),
                                                kernels::block_partition(n, grid.rows), n, 256);
    std::vector<std::int64_t> widths;
    for (std::size_t s = 0; s + 1 < cuts.size(); ++s) widths.push_back(cuts[s + 1] - cuts[s]);
    const Estimate summa = estimate_summa(m, n, grid.rows, grid.cols, widths, false, 8);
    const Estimate bound = estimate_25d_bound(m, n, p, 8);
    EXPECT_LT(bound.comm_s, summa.comm_s) << "p=" << p;
  }
  // Where n√(c/p) and n/c are whole (p=64: 8192, 8192; p=512: 4096, 4096) each rank does
  // exactly n³/p multiply-adds.
  for (int p : {64, 512}) {
    const Estimate bound = estimate_25d_bound(toy(8, 1e13), n, p, 8);
    expect_close(bound.compute_s * p, 2.0 * n * n * n / 1e13);
  }
}

}  // namespace
}  // namespace minigpu::perfmodel
