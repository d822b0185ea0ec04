// The bounds a figure is set against, and when they can be trusted: a bandwidth ceiling matched
// to the bytes a case touches, ceilings that contradict each other, a machine loaded while it
// measured, the FMA peak's kernel, and the scaling model held at its own ideal.
#include "ceilings/ceilings.hpp"
#include "ceilings/gemm_measure.hpp"
#include "core/backend.hpp"
#include "distributed/calibration.hpp"
#include "engine/ceiling_share.hpp"
#include "io/ceiling_table.hpp"
#include "io/console_writer.hpp"
#include "kernels/fma_peak.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <vector>

namespace minigpu {
namespace {

constexpr std::int64_t kKiB = 1024, kMiB = 1024 * 1024;

CeilingTable memcpy_family() {
  CeilingTable t;
  t.ceilings = {{"host_memcpy", "host memcpy, 1 thread", 14, "GB/s", "256 MiB", 512 * kMiB},
                {"host_memcpy@64KiB", "host memcpy, 1 thread, 64 KiB", 100, "GB/s", "64 KiB", 128 * kKiB},
                {"host_memcpy@1MiB", "host memcpy, 1 thread, 1 MiB", 45, "GB/s", "1 MiB", 2 * kMiB},
                {"host_memcpy_1core", "host memcpy, 1 thread", 14, "GB/s", "256 MiB", 0},
                {"host_sgemm", "best host sgemm", 190, "GFLOP/s", "n=1024", 0}};
  return t;
}

// Like with like: a case's bytes meet the smallest ceiling measured on at least as many, so a
// copy that stays in L2 is never set against memcpy from memory (it read 320 % of it).
TEST(Ceilings, ABandwidthCeilingIsTheOneMeasuredOnAsManyBytes) {
  const CeilingTable t = memcpy_family();
  EXPECT_EQ(t.find_for("host_memcpy", 8 * kKiB)->name, "host_memcpy@64KiB");
  EXPECT_EQ(t.find_for("host_memcpy", 128 * kKiB)->name, "host_memcpy@64KiB");
  EXPECT_EQ(t.find_for("host_memcpy", 128 * kKiB + 1)->name, "host_memcpy@1MiB");
  EXPECT_EQ(t.find_for("host_memcpy", 32 * kMiB)->name, "host_memcpy");
  EXPECT_EQ(t.find_for("host_memcpy", 4096 * kMiB)->name, "host_memcpy") << "beyond all: the largest";
  EXPECT_EQ(t.find_for("host_sgemm", 4 * kMiB)->name, "host_sgemm") << "a ceiling of one size";
  EXPECT_EQ(t.find_for("host_memcpy_1core", kKiB)->name, "host_memcpy_1core") << "not the family's";
  EXPECT_EQ(t.find_for("gpu_d2d", kKiB), nullptr);
  const CeilingTable back = CeilingTable::from_json(t.to_json());
  EXPECT_EQ(back.find("host_memcpy@1MiB")->bytes, 2 * kMiB) << "the size survives run.json and the cache";
}

// A rate above its bandwidth ceiling says why in the sizes where they explain it: a case on fewer
// bytes than its ceiling (1.5 MiB against memcpy@1MiB's 2 MiB) may keep its data in a cache the
// ceiling's outgrow; a case on as many bytes or more has only noise or a ceiling measured on a
// busier machine to blame.
TEST(Ceilings, ARateAboveItsBandwidthCeilingNamesTheSizes) {
  const CeilingTable t = memcpy_family();
  CaseResult row;
  row.spec.ceiling = "host_memcpy";
  row.spec.device_bytes = 3 * kMiB / 2;  // meets host_memcpy@1MiB, 2 MiB touched
  row.gbps = 60;
  attach_ceiling(row, t);
  ASSERT_TRUE(row.ceiling);
  EXPECT_EQ(row.ceiling->name, "host_memcpy@1MiB");
  EXPECT_NEAR(row.ceiling->percent, 100.0 * 60 / 45, 1e-9);
  EXPECT_NE(row.ceiling->above_because.find("the case touches 1.5 MiB and its ceiling's kernel 2.0 MiB"),
            std::string::npos)
      << row.ceiling->above_because;
  EXPECT_TRUE(row.reliable) << "the share is flagged; the timing stays the row's to judge";

  CaseResult beyond;  // 1 GiB against the streaming memcpy of 512 MiB touched: no cache to blame
  beyond.spec.ceiling = "host_memcpy";
  beyond.spec.device_bytes = 1024 * kMiB;
  beyond.gbps = 15;
  attach_ceiling(beyond, t);
  ASSERT_TRUE(beyond.ceiling);
  EXPECT_EQ(beyond.ceiling->name, "host_memcpy");
  EXPECT_EQ(beyond.ceiling->above_because.rfind("noise, or a ceiling measured on a busier machine", 0), 0u)
      << beyond.ceiling->above_because;

  CaseResult within;  // below 100 %: no reason to give
  within.spec.ceiling = "host_memcpy";
  within.spec.device_bytes = 3 * kMiB / 2;
  within.gbps = 40;
  attach_ceiling(within, t);
  ASSERT_TRUE(within.ceiling);
  EXPECT_TRUE(within.ceiling->above_because.empty());
}

// A ceiling counted k times (k ranks, each on a device of its own) is named as k x it where the
// console prints the share: a p = 2 row of 301.6 GFLOP/s had read "86.6% host_sgemm" beside a
// host_sgemm of 174 GFLOP/s.
TEST(Ceilings, AShareOfACeilingCountedTwiceSaysSo) {
  CaseResult row;
  row.experiment = "matmul_scaling";
  row.check.passed = true;
  row.spec.ceiling = "host_sgemm";
  row.spec.ceiling_scale = 2;
  row.gflops = 304;  // 80 % of 2 x 190
  attach_ceiling(row, memcpy_family());
  ASSERT_TRUE(row.ceiling);
  EXPECT_DOUBLE_EQ(row.ceiling->percent, 80);
  std::ostringstream out;
  io::ConsoleWriter(out, false).case_finished(row, 1, 1, 0.0);
  EXPECT_NE(out.str().find("80.0% 2 x host_sgemm "), std::string::npos) << out.str();
  row.spec.ceiling_scale = 1;  // counted once: its name alone
  row.gflops = 152;
  attach_ceiling(row, memcpy_family());
  std::ostringstream once;
  io::ConsoleWriter(once, false).case_finished(row, 1, 1, 0.0);
  EXPECT_NE(once.str().find("% host_sgemm "), std::string::npos) << once.str();
  EXPECT_EQ(once.str().find(" x host_sgemm"), std::string::npos) << once.str();
}

// More threads measurably below one thread is a busy machine, not the machine: such a table is
// doubtful, and never cached.
TEST(Ceilings, ThreadsBelowOneThreadAreAContradiction) {
  CeilingTable t;
  t.ceilings = {{"host_sgemm", "best host sgemm, 2 threads", 96.1, "GFLOP/s", "", 0},
                {"host_sgemm_1core", "best host sgemm, 1 thread", 185.9, "GFLOP/s", "", 0},
                {"host_memcpy", "host memcpy, 2 threads", 20, "GB/s", "", 0},
                {"host_memcpy_1core", "host memcpy, 1 thread", 10.6, "GB/s", "", 0}};
  const std::string doubt = ceiling_contradictions(t, 2);
  EXPECT_NE(doubt.find("host_sgemm 96.1 GFLOP/s (best host sgemm, 2 threads) below 186 on one thread"),
            std::string::npos)
      << doubt;
  EXPECT_EQ(doubt.find("host_memcpy"), std::string::npos) << doubt;
  t.ceilings[0].value = 300;
  EXPECT_EQ(ceiling_contradictions(t, 2), "");
  t.ceilings[2].value = 9.9;  // 7 % below one thread: the noise of two measurements, not a contradiction
  EXPECT_EQ(ceiling_contradictions(t, 2), "");
  t.ceilings[2].value = 7.2;  // 32 % below, as measured on a busy machine
  EXPECT_NE(ceiling_contradictions(t, 2).find("host_memcpy 7.2 GB/s"), std::string::npos);
}

// The FMA peak needs nothing the cores share: on two cores, two threads at one thread's rate
// shared a core (another process, a binding), as a bench step's table once did (117.3 against
// 116.7 GFLOP/s) while labelled "2 threads"; a row above such a table says why.
TEST(Ceilings, AnFmaPeakThatDidNotScaleWithItsCoresIsAContradiction) {
  CeilingTable t;
  t.ceilings = {{"host_fma_f32", "float32 FMA peak, 2 threads", 117.3, "GFLOP/s", "", 0},
                {"host_fma_f32_1core", "float32 FMA peak, 1 thread", 116.7, "GFLOP/s", "", 0},
                {"host_fma_f64", "float64 FMA peak, 2 threads", 114.0, "GFLOP/s", "", 0},
                {"host_fma_f64_1core", "float64 FMA peak, 1 thread", 58.6, "GFLOP/s", "", 0}};
  const std::string doubt = ceiling_contradictions(t, 2);
  EXPECT_NE(
      doubt.find("host_fma_f32 117 GFLOP/s (float32 FMA peak, 2 threads) is 1.01x one thread's on 2 cores"),
      std::string::npos)
      << doubt;
  EXPECT_EQ(doubt.find("host_fma_f64"), std::string::npos) << "1.95x on 2 cores scales: " << doubt;
  EXPECT_EQ(ceiling_contradictions(t, 1), "") << "two SMT siblings of one core: one core's rate is right";
  EXPECT_EQ(ceiling_contradictions(t, 0), "") << "an unknown topology is not a contradiction";
  t.ceilings[0].value = 176;  // 1.51x: past the half core each added core must bring
  EXPECT_EQ(ceiling_contradictions(t, 2), "");
  // 64 cores at 60 % of one core's turbo each (AVX-512's all-core clock) is a machine, not a fault.
  t.ceilings[0].value = 116.7 * 64 * 0.6;
  t.ceilings[2].value = 58.6 * 64 * 0.6;
  EXPECT_EQ(ceiling_contradictions(t, 64), "");

  CeilingTable doubtful;
  doubtful.ceilings = {{"host_sgemm", "best host sgemm, 2 threads", 100, "GFLOP/s", "", 0},
                       {"host_fma_f32", "float32 FMA peak, 2 threads", 117.3, "GFLOP/s", "", 0}};
  doubtful.doubt = doubt;
  CaseResult row;
  row.spec.ceiling = "host_sgemm";
  row.spec.peak = "host_fma_f32";
  row.gflops = 200;
  attach_ceiling(row, doubtful);
  ASSERT_TRUE(row.ceiling && row.peak);
  EXPECT_DOUBLE_EQ(row.ceiling->percent, 200);
  EXPECT_EQ(row.ceiling->above_because, "the ceilings are doubtful: " + doubt);
  EXPECT_EQ(row.peak->above_because, "the ceilings are doubtful: " + doubt);
  doubtful.doubt.clear();
  row.ceiling.reset();
  row.peak.reset();
  attach_ceiling(row, doubtful);
  ASSERT_TRUE(row.ceiling);
  EXPECT_NE(row.ceiling->above_because.find("its GEMM's fastest of n = 64 ... 1024"), std::string::npos);

  // The doubt is the host's: a GPU row above its ceiling is not blamed on it (on the H200 node a
  // cuBLAS DGEMM at n = 10000, 102.5 % of the n = 4096 ceiling, was blamed on host_fma_f32).
  doubtful.doubt = doubt;
  doubtful.ceilings.push_back(
      {"gpu_dgemm", "cuBLAS dgemm", 62342, "GFLOP/s", "dgemm n=4096 (2n^3 flops)", 0});
  CaseResult gpu_row;
  gpu_row.spec.ceiling = "gpu_dgemm";
  gpu_row.gflops = 63924;
  attach_ceiling(gpu_row, doubtful);
  ASSERT_TRUE(gpu_row.ceiling);
  EXPECT_EQ(gpu_row.ceiling->above_because.find("doubtful"), std::string::npos)
      << gpu_row.ceiling->above_because;
  EXPECT_NE(gpu_row.ceiling->above_because.find("times one size (dgemm n=4096"), std::string::npos)
      << gpu_row.ceiling->above_because;
  EXPECT_EQ(doubtful.doubt_about(doubtful.ceilings[0]), doubt) << "a host ceiling keeps the doubt";
}

// Other processes' share of the node: busy time not the job's own, over the node's CPU time.
// The FMA peak's kernel computes what it says: one step of x = a·x + b from each chain's start,
// and, run long, every lane at the fixed point (a compiler that broke the chains would not be).
// A GEMM ceiling is its GEMM's fastest size, wherever that falls: at n = 1024 alone, native
// float64 at n = 128 read 106 % of it (its tiles run from L1 there).
TEST(Ceilings, AGemmCeilingIsItsFastestSizeNotItsLargest) {
  const GemmRate best = fastest_gemm({{64, 90}, {128, 111}, {256, 110}, {1024, 100}});
  EXPECT_EQ(best.n, 128);
  EXPECT_EQ(best.gflops, 111);
  EXPECT_EQ(fastest_gemm({{64, 100}, {1024, 100}}).n, 64) << "of equal rates, the smallest n";
  EXPECT_EQ(fastest_gemm({}).gflops, 0);
  // From in-cache products to the chapter's largest host product, every power of two between:
  // the shipped matmul input's host sizes from 64 on.
  const std::vector<std::int64_t> sizes(std::begin(kHostGemmCeilingSizes), std::end(kHostGemmCeilingSizes));
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{64, 128, 256, 512, 1024}));
}

TEST(FmaPeak, OneStepIsTheRecurrenceAndALongRunEndsAtItsFixedPoint) {
  const float a = float(kernels::kFmaFactor), b = float(kernels::kFmaFixedPoint * (1 - kernels::kFmaFactor));
  double want = 0;
  for (int c = 0; c < kernels::kFmaChains; ++c)
    want += kernels::fma_lanes<float>() * double(a * float(c) + b);
  EXPECT_NEAR(kernels::fma_chains_on_host<float>(1), want, 1e-6 * want);
  const double values = kernels::kFmaChains * kernels::fma_lanes<double>();
  EXPECT_NEAR(kernels::fma_chains_on_host<double>(1 << 16) / values, kernels::kFmaFixedPoint, 1e-12);
  EXPECT_EQ(kernels::fma_lanes<float>(), 2 * kernels::fma_lanes<double>());
  // Every thread runs the same chains: the sum over threads is threads times one thread's.
  const int threads = HostExecSpace().concurrency();
  EXPECT_DOUBLE_EQ((kernels::fma_peak_on_host<HostExecSpace, double>(1 << 12)),
                   threads * kernels::fma_chains_on_host<double>(1 << 12));
  // The GPU's kernel, run here on the host space: 64 threads of kFmaGpuChains chains, each at x*.
  EXPECT_NEAR(
      (kernels::fma_peak_on_device<HostExecSpace, double>(1 << 16, 64)) / (64 * kernels::kFmaGpuChains),
      kernels::kFmaFixedPoint, 1e-12);
  const double one_step = kernels::fma_peak_on_device<HostExecSpace, double>(1, 1);
  double want_step = 0;
  for (int c = 0; c < kernels::kFmaGpuChains; ++c)
    want_step += kernels::kFmaFactor * c + kernels::kFmaFixedPoint * (1 - kernels::kFmaFactor);
  EXPECT_NEAR(one_step, want_step, 1e-12 * want_step);
}

// The model's per-shape rates summed to 162 % efficiency once: a row's model_s is held at the
// ideal from its curve's row of fewest ranks, strong (t1/p) and weak (t1 for p times the work).
TEST(ScalingModel, NeverPredictsAboveItsOwnIdeal) {
  const std::vector<ScalingCase> cases = {{Decomposition::summa, 1, 1024, {1, 1}, {}},
                                          {Decomposition::summa, 2, 1024, {2, 1}, {}},
                                          {Decomposition::summa, 4, 1024, {2, 2}, {}},
                                          {Decomposition::row, 2, 1024, {2, 1}, {}}};
  std::vector<CaseResult> rows(cases.size());
  const double model[] = {1.0, 0.31, 0.30, 0.6};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].spec.index = i;
    rows[i].seconds.median = 1.0 / cases[i].p;
    rows[i].work.flops = 2.0 * 1024 * 1024 * 1024;
    rows[i].values = {{"model_s", model[i]}, {"model_error_pct", 0.0}};
  }
  perfmodel::hold_at_ideal(rows,
                           [&](const CaseResult& r) -> const ScalingCase& { return cases[r.spec.index]; });
  EXPECT_DOUBLE_EQ(*rows[0].value("model_s"), 1.0) << "the reference stands";
  EXPECT_DOUBLE_EQ(*rows[1].value("model_s"), 0.5) << "162 % held at 100 %";
  EXPECT_DOUBLE_EQ(*rows[1].value("model_unheld_s"), 0.31);
  EXPECT_DOUBLE_EQ(*rows[1].value("model_error_pct"), 0.0) << "measured 0.5 s, held model 0.5 s";
  EXPECT_DOUBLE_EQ(*rows[2].value("model_s"), 0.30) << "above the ideal 0.25 s: kept";
  EXPECT_FALSE(rows[2].value("model_unheld_s").has_value());
  EXPECT_DOUBLE_EQ(*rows[3].value("model_s"), 0.6) << "row is its own curve, with no p = 1 row: kept";
  // Weak: twice the flops on 2 ranks takes t1 at the ideal.
  EXPECT_DOUBLE_EQ(perfmodel::ideal_seconds(1.0, 1e9, 1, 2e9, 2), 1.0);
  EXPECT_DOUBLE_EQ(perfmodel::ideal_seconds(1.0, 1e9, 1, 1e9, 4), 0.25);
}

}  // namespace
}  // namespace minigpu
