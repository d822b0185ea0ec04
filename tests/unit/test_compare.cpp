// compare/: the ratio, its interval and the verdict against arithmetic done by hand, matching
// (one-sided cases, repeated keys, findings), the --fail-below threshold at its edges, and the
// loader refusing broken references with the file, entry and key.
#include "compare/compare_writers.hpp"
#include "compare/comparison.hpp"
#include "compare/run_table.hpp"
#include "core/errors.hpp"
#include "io/run_record.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace minigpu::compare {
namespace {

CaseTime timed(const std::string& label, double median, double low, double high) {
  CaseTime c{"matmul", label, "cpu", "float32"};
  c.median_s = median;
  c.ci95 = std::pair{low, high};
  return c;
}

RunTable table(std::vector<CaseTime> cases, std::vector<FindingValue> findings = {}) {
  RunTable t;
  t.cases = std::move(cases);
  t.findings = std::move(findings);
  return t;
}

// What `minigpu compare` prints for a comparison without a reference.
std::string comparison_text(const Comparison& cmp) {
  std::ostringstream os;
  write_comparison(os, cmp, std::nullopt);
  return os.str();
}

TEST(Compare, RatioAndIntervalFromBothMedians) {
  // 1.5 / 1.0 = 1.5; interval [1.4 / 1.1, 1.6 / 0.9] = [1.272727…, 1.777…]: above 1, slower.
  const auto c = compare_tables(table({timed("a", 1.0, 0.9, 1.1)}), table({timed("a", 1.5, 1.4, 1.6)}));
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_DOUBLE_EQ(c.cases[0].ratio, 1.5);
  EXPECT_DOUBLE_EQ(c.cases[0].ci95.first, 1.4 / 1.1);
  EXPECT_DOUBLE_EQ(c.cases[0].ci95.second, 1.6 / 0.9);
  EXPECT_EQ(c.cases[0].verdict, Verdict::slower);
  EXPECT_EQ(c.cases[0].note, "");
}

// A quickstart compared "1 [1.001, 1.003] slower": a verdict past 1 prints its ratio past 1 too.
TEST(Compare, ANarrowVerdictPrintsItsRatioAndIntervalPastOne) {
  const auto c =
      compare_tables(table({timed("a", 1.0, 0.9995, 1.0005)}), table({timed("a", 1.002, 1.001, 1.003)}));
  ASSERT_EQ(c.cases[0].verdict, Verdict::slower);
  const std::string text = comparison_text(c);
  // [1.001 / 1.0005, 1.003 / 0.9995] = [1.00049…, 1.00350…]: at 4 digits the low end would print 1.
  EXPECT_NE(text.find("1.002 [1.0004, 1.0036]"), std::string::npos) << text;
}

TEST(Compare, VerdictsFasterAndSameWithinNoise) {
  // 0.5 [0.45, 0.55] vs 1 [0.9, 1.1]: [0.409, 0.611] below 1. 1.05 [0.95, 1.2]: [0.864, 1.33] holds 1.
  const auto c = compare_tables(table({timed("fast", 1.0, 0.9, 1.1), timed("same", 1.0, 0.9, 1.1)}),
                                table({timed("fast", 0.5, 0.45, 0.55), timed("same", 1.05, 0.95, 1.2)}));
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_EQ(c.cases[0].verdict, Verdict::faster);
  EXPECT_EQ(c.cases[1].verdict, Verdict::same);
  EXPECT_EQ(c.count(Verdict::faster), 1);
  EXPECT_EQ(c.count(Verdict::same), 1);
  EXPECT_EQ(c.count(Verdict::slower), 0);
}

TEST(Compare, ASideWithoutAnIntervalCountsAsItsMedianAndSaysSo) {
  CaseTime reference{"matmul", "a", "cpu", "float32"};
  reference.median_s = 2.0;
  const auto c = compare_tables(table({reference}), table({timed("a", 2.2, 2.1, 2.3)}));
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_DOUBLE_EQ(c.cases[0].ci95.first, 2.1 / 2.0);
  EXPECT_DOUBLE_EQ(c.cases[0].ci95.second, 2.3 / 2.0);
  EXPECT_EQ(c.cases[0].verdict, Verdict::slower);
  EXPECT_EQ(c.cases[0].note, "baseline has no interval");
}

// An interrupted (or killed) run lacks cases: comparing against it says so, naming the side.
TEST(Compare, AnIncompleteSideIsWarnedAbout) {
  RunTable interrupted = table({timed("a", 1, 1, 1)});
  interrupted.path = "results/quickstart-20261126T083400.interrupted";
  interrupted.status = "interrupted";
  interrupted.cases_planned = 20;
  RunTable complete = table({timed("a", 1, 1, 1), timed("b", 1, 1, 1)});
  complete.status = "complete";
  const auto c = compare_tables(complete, interrupted);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(
      c.warnings[0],
      "results/quickstart-20261126T083400.interrupted is an incomplete run (status interrupted, 1 of 20 "
      "cases): the cases it lacks are not compared");
  EXPECT_TRUE(compare_tables(complete, complete).warnings.empty());
  EXPECT_TRUE(compare_tables(table({timed("a", 1, 1, 1)}), complete).warnings.empty())
      << "a reference has no status";
}

// A Serial build against an OpenMP one, or 1 thread against 2, moves every row: compare says so,
// and says nothing of a setup only one side records.
TEST(Compare, DifferentSetupsAreWarnedAbout) {
  RunTable serial = table({timed("a", 1, 1, 1)}), openmp = serial;
  serial.setup = {{"Kokkos", "3.4.1 Serial"}, {"threads a rank", "1"}, {"OpenBLAS kernels", "Haswell"}};
  openmp.setup = {{"Kokkos", "4.6.1 OpenMP"}, {"threads a rank", "2"}, {"OpenBLAS kernels", "Haswell"}};
  const auto c = compare_tables(serial, openmp);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(
      c.warnings[0],
      "different setups (Kokkos 3.4.1 Serial vs 4.6.1 OpenMP; threads a rank 1 vs 2): ratios include them");
  EXPECT_TRUE(compare_tables(serial, serial).warnings.empty());
  RunTable unknown = serial;
  unknown.setup.clear();
  EXPECT_TRUE(compare_tables(unknown, openmp).warnings.empty());
}

TEST(Compare, MatchesByKeyAndListsOneSidedCases) {
  auto gpu = timed("a", 1, 1, 1);
  gpu.device = "gpu:0";
  auto f64 = timed("a", 1, 1, 1);
  f64.dtype = "float64";
  const auto c = compare_tables(table({timed("a", 1, 1, 1), timed("only_base", 1, 1, 1), gpu}),
                                table({f64, timed("a", 1, 1, 1), timed("only_cand", 1, 1, 1)}));
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].candidate.key(), "matmul / a / cpu / float32");
  ASSERT_EQ(c.only_baseline.size(), 2u);
  EXPECT_EQ(c.only_baseline[0].label, "only_base");
  EXPECT_EQ(c.only_baseline[1].device, "gpu:0");
  ASSERT_EQ(c.only_candidate.size(), 2u);
  EXPECT_EQ(c.only_candidate[0].dtype, "float64");
  EXPECT_EQ(c.only_candidate[1].label, "only_cand");
}

TEST(Compare, RepeatedKeysMatchInOrderAndDifferingParamsAreNoted) {
  auto first = timed("a", 1, 1, 1), second = timed("a", 2, 2, 2);
  first.params = {{"n", "64"}};
  auto other = timed("a", 3, 3, 3);
  other.params = {{"n", "128"}};
  const auto c = compare_tables(table({first, second}), table({other, timed("a", 4, 4, 4)}));
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_DOUBLE_EQ(c.cases[0].ratio, 3.0);  // first with first
  EXPECT_DOUBLE_EQ(c.cases[1].ratio, 2.0);  // second with second
  EXPECT_EQ(c.cases[0].note, "parameters differ: n 64 vs 128");
}

// Two runs of one input whose `kernel: auto` picked differently: their cases pair up with a
// note naming both picks; auto's reasons (when each kernel was timed) are not a difference.
TEST(Compare, CasesWhoseAutoKernelPickDiffersPairWithANote) {
  auto vendor = timed("summa p=2 n=256 vendor", 2, 2, 2);
  vendor.params = {
      {"n", "256"}, {"kernel", "vendor"}, {"kernel_choice", "auto→vendor (vendor 1x native, measured T1)"}};
  auto native = timed("summa p=2 n=256 native", 3, 3, 3);
  native.params = {
      {"n", "256"}, {"kernel", "native"}, {"kernel_choice", "auto→native (native 1.1x vendor, measured T2)"}};
  auto same_pick = timed("row p=1 n=256 native", 1, 1, 1);
  same_pick.params = {{"kernel", "native"},
                      {"kernel_choice", "auto→native (native 1.1x vendor, measured T1)"}};
  auto same_pick_later = same_pick;
  same_pick_later.params["kernel_choice"] = "auto→native (native 1.3x vendor, measured T2)";
  auto named = timed("summa p=2 n=256 vendor", 1, 1, 1);  // named in the input: no pairing
  named.params = {{"kernel", "vendor"}, {"kernel_choice", "vendor: named in the input"}};
  auto named_native = timed("summa p=2 n=256 native", 1, 1, 1);
  named_native.params = {{"kernel", "native"}, {"kernel_choice", "native: named in the input"}};

  const auto c = compare_tables(table({same_pick, vendor}), table({native, same_pick_later}));
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_TRUE(c.only_baseline.empty());
  EXPECT_TRUE(c.only_candidate.empty());
  EXPECT_EQ(c.cases[0].candidate.label, "summa p=2 n=256 native");  // the candidate's order
  EXPECT_EQ(c.cases[0].baseline.label, "summa p=2 n=256 vendor");
  EXPECT_DOUBLE_EQ(c.cases[0].ratio, 1.5);
  EXPECT_EQ(c.cases[0].note, "parameters differ: kernel: auto picked vendor vs native");
  EXPECT_EQ(c.cases[1].note, "");

  EXPECT_EQ(io::auto_pick(io::auto_choice("vendor", "why")), "vendor");  // the runs' own spelling
  EXPECT_EQ(io::auto_pick("vendor: named in the input"), "");
  const auto apart = compare_tables(table({named}), table({named_native}));
  EXPECT_TRUE(apart.cases.empty());
  EXPECT_EQ(apart.only_baseline.size(), 1u);
  EXPECT_EQ(apart.only_candidate.size(), 1u);
}

TEST(Compare, FindingsSideBySide) {
  const FindingValue a{"lazy", "x", "x", 2.0}, b{"lazy", "y", "x", 3.0}, b2{"lazy", "y", "x", 4.0},
      c{"lazy", "z", "x", std::nullopt};
  const auto cmp =
      compare_tables(table({timed("a", 1, 1, 1)}, {a, b}), table({timed("a", 1, 1, 1)}, {b2, c}));
  ASSERT_EQ(cmp.findings.size(), 3u);
  EXPECT_EQ(cmp.findings[0].key, "lazy.x");
  EXPECT_FALSE(cmp.findings[0].candidate);
  EXPECT_DOUBLE_EQ(*cmp.findings[1].baseline->value, 3.0);
  EXPECT_DOUBLE_EQ(*cmp.findings[1].candidate->value, 4.0);
  EXPECT_EQ(cmp.findings[2].key, "lazy.z");
  EXPECT_FALSE(cmp.findings[2].baseline);
}

TEST(Compare, EachFlaggedFindingIsPrintedWithItsRunsReason) {
  FindingValue above{"multi_gpu_concurrency", "efficiency_float32", "%", 100.6};
  above.reliable = false;
  above.unreliable_because = "superlinear (above 100 %)";
  FindingValue below = above;
  below.value = 98.9;
  FindingValue other = above;
  other.name = "speedup_float32";
  other.unreliable_because = "cv 40 %";
  FindingValue steady = other;
  steady.reliable = true;
  steady.unreliable_because.clear();
  const auto cmp = compare_tables(table({timed("a", 1, 1, 1)}, {below, steady}),
                                  table({timed("a", 1, 1, 1)}, {above, other}));
  const std::string text = comparison_text(cmp);
  EXPECT_NE(text.find("  ! multi_gpu_concurrency.efficiency_float32 (both): superlinear (above 100 %)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  ! multi_gpu_concurrency.speedup_float32 (candidate): cv 40 %\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("speedup_float32 (baseline)"), std::string::npos) << text;
  EXPECT_EQ(comparison_json(cmp, std::nullopt)["findings"][0]["candidate"]["unreliable_because"],
            "superlinear (above 100 %)");
}

TEST(Compare, EachFindingWithoutAValueIsPrintedWithItsRunsNote) {
  FindingValue no_gpu{"matmul", "crossover_n_vendor_float32", "n"};
  no_gpu.note = "no GPU: only cpu cases ran";
  FindingValue measured = no_gpu;
  measured.value = 512;
  measured.note = "gpu faster from n=512";
  FindingValue pinned{"transfer", "pinned_over_pageable_h2d", "x"};
  pinned.note = "this build has no pinned host memory";
  FindingValue silent{"transfer", "pinned_over_pageable_d2h", "x"};
  const auto cmp = compare_tables(table({timed("a", 1, 1, 1)}, {no_gpu, pinned, silent}),
                                  table({timed("a", 1, 1, 1)}, {measured, pinned, silent}));
  const std::string text = comparison_text(cmp);
  EXPECT_NE(text.find("  n/a matmul.crossover_n_vendor_float32 (baseline): no GPU: only cpu cases ran\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("crossover_n_vendor_float32 (candidate)"), std::string::npos) << text;
  EXPECT_EQ(text.find("gpu faster from n=512"), std::string::npos) << text;  // a value needs no reason
  EXPECT_NE(
      text.find("  n/a transfer.pinned_over_pageable_h2d (both): this build has no pinned host memory\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("  n/a transfer.pinned_over_pageable_d2h (both): (no reason recorded)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(comparison_json(cmp, std::nullopt)["findings"][0]["baseline"]["note"],
            "no GPU: only cpu cases ran");
}

TEST(Compare, FailBelowNeedsTheWholeIntervalPastTheThreshold) {
  // Interval low end 1.4 / 1.1 = 1.2727: speed at most 0.7857 of the baseline's.
  const auto c = compare_tables(table({timed("a", 1.0, 0.9, 1.1)}), table({timed("a", 1.5, 1.4, 1.6)}));
  EXPECT_EQ(below_threshold(c, 20).size(), 1u);  // limit 1 / 0.8 = 1.25 < 1.2727
  EXPECT_EQ(below_threshold(c, 21).size(), 1u);  // 1 / 0.79 = 1.2658
  EXPECT_EQ(below_threshold(c, 22).size(), 0u);  // 1 / 0.78 = 1.2821 > 1.2727
  EXPECT_EQ(below_threshold(c, 0).size(), 1u);
  // A candidate that failed verification fails the check however fast it was.
  auto wrong = timed("a", 0.1, 0.1, 0.1);
  wrong.verified = false;
  const auto w = compare_tables(table({timed("a", 1.0, 0.9, 1.1)}), table({wrong}));
  EXPECT_EQ(below_threshold(w, 50).size(), 1u);
}

TEST(Compare, CsvHasARowPerCaseAndJsonTheSummary) {
  const auto c = compare_tables(table({timed("a", 1.0, 0.9, 1.1), timed("b", 1, 1, 1)}),
                                table({timed("a", 1.5, 1.4, 1.6), timed("c", 1, 1, 1)}));
  const std::string csv = comparison_csv(c);
  EXPECT_NE(csv.find("\nmatmul,a,cpu,float32,1,0.9,1.1,1.5,1.4,1.6,1.5,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nmatmul,b,cpu,float32,1,1,1,,,,,,,only_in_baseline,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nmatmul,c,cpu,float32,,,,1,1,1,,,,only_in_candidate,\n"), std::string::npos) << csv;
  const auto j = comparison_json(c, 10.0);
  EXPECT_EQ(j["summary"]["slower"], 1);
  EXPECT_EQ(j["cases"][0]["verdict"], "slower");
  EXPECT_EQ(j["fail_below"]["failing"].size(), 1u);
}

std::string write_temp(const std::string& text) {
  char name[] = "/tmp/minigpu_compare_XXXXXX";
  const int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  std::ofstream(name) << text;
  return name;
}

std::string load_error(const std::string& text) {
  const std::string path = write_temp(text);
  std::string message;
  try {
    load_run_table(path);
  } catch (const InputError& e) {
    message = e.what();
  }
  std::remove(path.c_str());
  return message;
}

TEST(Compare, LoaderReadsAReferenceAndRefusesBrokenOnesWithEntryAndKey) {
  const std::string good = R"({"reference": {"description": "d", "hardware": "h", "software": "s",
    "measured": "2026-11-23", "source": "src"},
    "results": [{"experiment": "matmul", "case": "vendor n=64", "device": "cpu", "dtype": "float32",
                 "seconds": {"median": 2e-3, "median_ci95": [1e-3, 3e-3]}},
                {"experiment": "matmul", "case": "vendor n=128", "device": "cpu", "dtype": "float32",
                 "seconds": {"median": 5e-3, "median_ci95": null}}],
    "kokkos": {"version": "4.6.1", "default_execution_space": "OpenMP"}, "threads": {"kokkos_host": 2},
    "findings": [{"experiment": "lazy", "name": "x", "value": null, "unit": "x", "note": "no GPU"},
                 {"experiment": "lazy", "name": "y", "value": 2, "unit": "x", "reliable": false,
                  "unreliable_because": "cv 30 %"}]})";
  const std::string path = write_temp(good);
  const auto t = load_run_table(path);
  std::remove(path.c_str());
  EXPECT_TRUE(t.is_reference);
  EXPECT_EQ(t.description, "d (h; s; measured 2026-11-23)");
  ASSERT_EQ(t.cases.size(), 2u);
  EXPECT_DOUBLE_EQ(t.cases[0].ci95->second, 3e-3);
  EXPECT_FALSE(t.cases[1].ci95);
  ASSERT_EQ(t.findings.size(), 2u);
  EXPECT_TRUE(t.findings[0].reliable);
  EXPECT_FALSE(t.findings[0].value);
  EXPECT_EQ(t.findings[0].note, "no GPU");
  const std::map<std::string, std::string> setup = {{"Kokkos", "4.6.1 OpenMP"}, {"threads a rank", "2"}};
  EXPECT_EQ(t.setup, setup);  // no blas block: no "OpenBLAS kernels"
  EXPECT_FALSE(t.findings[1].reliable);
  EXPECT_EQ(t.findings[1].unreliable_because, "cv 30 %");

  EXPECT_NE(load_error(R"({"results": [{"experiment": "m", "case": "c", "device": "cpu", "dtype": "f",
    "seconds": {"median": -1}}]})")
                .find(": results[0]: key 'seconds.median' must be a positive number"),
            std::string::npos);
  EXPECT_NE(load_error(R"({"results": [{"experiment": "m", "case": "c", "device": "cpu", "dtype": "f",
    "seconds": {"median": 1}}, {"case": "c"}]})")
                .find(": results[1]: key 'experiment' is missing"),
            std::string::npos);
  EXPECT_NE(load_error(R"({"results": [{"experiment": "m", "case": "c", "device": "cpu", "dtype": "f",
    "seconds": {"median": 1, "median_ci95": [2, 3]}}]})")
                .find("key 'seconds.median_ci95' must contain the value"),
            std::string::npos);
  EXPECT_EQ(load_error(R"({"results": []})"), "");  // empty, but a table
  EXPECT_NE(load_error("{\"results\": [").find("not JSON"), std::string::npos);
  EXPECT_NE(load_error(R"({"findings": []})").find("top level: key 'results' is missing"), std::string::npos);
  EXPECT_NE(load_error(R"({"reference": {"description": "d"}, "results": []})")
                .find("reference: key 'hardware' is missing"),
            std::string::npos);
}

}  // namespace
}  // namespace minigpu::compare
