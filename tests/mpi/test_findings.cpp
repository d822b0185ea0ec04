// The engine's statistics, the findings drawn from rows (ratios, efficiencies, the flags they
// inherit) and the checks' tolerances, on hand-made rows.
#include "engine/findings.hpp"
#include "engine/stats.hpp"
#include "io/results.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace minigpu {
namespace {

TEST(Stats, KnownSamples) {
  const Stats odd = summarize({3.0, 1.0, 2.0, 10.0, 4.0});
  EXPECT_DOUBLE_EQ(odd.min, 1.0);
  EXPECT_DOUBLE_EQ(odd.median, 3.0);
  EXPECT_DOUBLE_EQ(odd.mean, 4.0);
  EXPECT_DOUBLE_EQ(odd.max, 10.0);
  const Stats even = summarize({4.0, 1.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  EXPECT_DOUBLE_EQ(even.mean, 2.5);
  EXPECT_DOUBLE_EQ(summarize({7.0}).median, 7.0);
  EXPECT_DOUBLE_EQ(summarize({7.0}).cv, 0.0);
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

TEST(Stats, SpreadAndTheMediansConfidenceInterval) {
  // {1..5}: mean 3, sample variance 2.5, so cv = sqrt(2.5)/3.
  const Stats five = summarize({5.0, 3.0, 1.0, 4.0, 2.0});
  EXPECT_NEAR(five.cv, std::sqrt(2.5) / 3, 1e-15);
  // Five samples cannot give 95 %: [min, max] (coverage 1 - 2/32).
  EXPECT_DOUBLE_EQ(five.median_ci_low, 1.0);
  EXPECT_DOUBLE_EQ(five.median_ci_high, 5.0);
  EXPECT_DOUBLE_EQ(five.median_ci_percent(), 200.0 / 3);
  // n = 10: the textbook interval is [x(2), x(9)] (coverage 97.9 %; [x(3), x(8)] has 89 %).
  const Stats ten = summarize({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(ten.median_ci_low, 2.0);
  EXPECT_DOUBLE_EQ(ten.median_ci_high, 9.0);
  // n = 20: [x(6), x(15)] (P(B <= 5) = 2.07 %, P(B <= 6) = 5.77 %).
  std::vector<double> twenty;
  for (int i = 1; i <= 20; ++i) twenty.push_back(i);
  const Stats t = summarize(twenty);
  EXPECT_DOUBLE_EQ(t.median_ci_low, 6.0);
  EXPECT_DOUBLE_EQ(t.median_ci_high, 15.0);
  EXPECT_DOUBLE_EQ(summarize({2.0, 2.0, 2.0}).cv, 0.0);
}

// A parallel efficiency is flagged when its interval allows superlinear scaling, so a figure
// near 100 % is flagged in every run rather than in every other one.
TEST(Findings, EfficiencyCarriesItsIntervalAndFlagsWhatMayBeSuperlinear) {
  const auto stats = [](double median, double low, double high) {
    CaseResult r;
    r.seconds.median = median, r.seconds.median_ci_low = low, r.seconds.median_ci_high = high;
    return r;
  };
  const CaseResult one_rank = stats(2.0, 1.98, 2.02);
  // 2 ranks at 1.25 s: 2.0/(2·1.25) = 80 %, at most 2.02/(2·1.24) = 81.45 %: clearly sublinear.
  const Finding sub = efficiency_finding("efficiency_x", one_rank, stats(1.25, 1.24, 1.26), 0.5, "n");
  ASSERT_TRUE(sub.value.has_value());
  EXPECT_DOUBLE_EQ(*sub.value, 80.0);
  EXPECT_TRUE(sub.reliable) << sub.unreliable_because;
  // [78.57, 81.45], rounded outward so the printed interval holds the true one.
  EXPECT_NE(sub.note.find("95 % interval [78.5, 81.5] %"), std::string::npos) << sub.note;
  // 98.96 % in [98.95, 98.97] once printed "[99, 99] %", as if it excluded its own median.
  const Finding tight =
      efficiency_finding("efficiency_x", stats(2.0, 2.0, 2.0), stats(1.0105, 1.0104, 1.0106), 0.5, "n");
  EXPECT_NE(tight.note.find("95 % interval [98.9, 99] %"), std::string::npos) << tight.note;
  // 99 %, but the interval reaches 2.02/(2·0.99) = 102 %.
  const Finding near = efficiency_finding("efficiency_x", one_rank, stats(1.0101, 0.99, 1.03), 0.5, "n");
  EXPECT_LT(*near.value, 100.0);
  EXPECT_FALSE(near.reliable);
  EXPECT_NE(near.unreliable_because.find("reaches above 100 %"), std::string::npos)
      << near.unreliable_because;
  // 2.0/(2·0.8) = 125 %: superlinear.
  const Finding super = efficiency_finding("efficiency_x", one_rank, stats(0.8, 0.79, 0.81), 0.5, "n");
  EXPECT_DOUBLE_EQ(*super.value, 125.0);
  EXPECT_NE(super.unreliable_because.find("superlinear"), std::string::npos);
  EXPECT_FALSE(efficiency_finding("efficiency_x", one_rank, stats(0, 0, 0), 0.5, "n").value.has_value());
}

// A finding drawn from a flagged row is flagged with that row's reason; one drawn from other
// rows is not, unless they come from two runs; a finding with a value that names no row is an
// experiment's bug.
TEST(Findings, InheritTheFlagsOfTheirRows) {
  std::vector<CaseResult> rows(3);
  for (int i = 0; i < 3; ++i) {
    rows[i].case_index = i + 1;
    rows[i].spec.label = "row" + std::to_string(i + 1);
    rows[i].seconds.median = 1.0 + i;
  }
  rows[1].mark_unreliable("repetitions vary: cv 55 % above 25 %");
  Finding from_flagged{"e", "a_over_b", 0.5, "x", ""};
  from_flagged.drawn_from({&rows[0], &rows[1]});
  inherit_unreliable_rows(from_flagged, rows);
  EXPECT_FALSE(from_flagged.reliable);
  EXPECT_EQ(from_flagged.unreliable_because, "drawn from row 'row2': repetitions vary: cv 55 % above 25 %");
  Finding from_clean{"e", "a_over_c", 0.3, "x", ""};
  from_clean.drawn_from({&rows[0], &rows[2]});
  inherit_unreliable_rows(from_clean, rows);
  EXPECT_TRUE(from_clean.reliable) << from_clean.unreliable_because;
  Finding nameless{"e", "orphan", 1.0, "x", ""};
  EXPECT_THROW(inherit_unreliable_rows(nameless, rows), std::logic_error);
  Finding no_value{"e", "none_here", std::nullopt, "x", "no GPU"};
  EXPECT_NO_THROW(inherit_unreliable_rows(no_value, rows));
  // A --resume's row beside one measured now: two processes, flagged whatever the rows say.
  rows[0].check.detail += CaseResult::kResumedMark;
  Finding across_runs{"e", "a_over_c", 0.3, "x", ""};
  across_runs.drawn_from({&rows[2], &rows[0]});
  inherit_unreliable_rows(across_runs, rows);
  EXPECT_FALSE(across_runs.reliable);
  EXPECT_EQ(across_runs.unreliable_because,
            "compares rows of 2 runs: 'row1' carried over by --resume, 'row3' measured in this one");
  rows[2].check.detail += CaseResult::kResumedMark;  // both carried over: one earlier run
  Finding both_earlier{"e", "a_over_c", 0.3, "x", ""};
  both_earlier.drawn_from({&rows[0], &rows[2]});
  inherit_unreliable_rows(both_earlier, rows);
  EXPECT_TRUE(both_earlier.reliable) << both_earlier.unreliable_because;
  // A second resume marks row1 again: it and row3 now come from two earlier runs.
  rows[0].check.detail += CaseResult::kResumedMark;
  EXPECT_EQ(rows[0].resumes_since_measured(), 2);
  Finding two_earlier{"e", "a_over_c", 0.3, "x", ""};
  two_earlier.drawn_from({&rows[2], &rows[0]});
  inherit_unreliable_rows(two_earlier, rows);
  EXPECT_EQ(two_earlier.unreliable_because,
            "compares rows of 2 runs: 'row1' carried over by 2 resumes, 'row3' carried over by --resume");
  // The ratio helpers name their rows themselves.
  const Finding ratio = ratio_finding("r", rows[1], rows[2], "");
  EXPECT_EQ(ratio.rows, (std::vector<int>{2, 3}));
}

TEST(Findings, SpeedupStandsOrFallsWithItsEfficiency) {
  const auto stats = [](double median, double low, double high) {
    CaseResult r;
    r.seconds.median = median, r.seconds.median_ci_low = low, r.seconds.median_ci_high = high;
    return r;
  };
  // 4 s on 1 rank, 1.25 s on 4: speedup 3.2, efficiency 3.2/4 = 80 %.
  const auto [speedup, efficiency] =
      speedup_and_efficiency("summa_f32_p4", stats(4, 3.9, 4.1), stats(1.25, 1.2, 1.3), 0.25, "s", "e");
  EXPECT_EQ(speedup.name, "speedup_summa_f32_p4");
  EXPECT_EQ(efficiency.name, "efficiency_summa_f32_p4");
  ASSERT_TRUE(speedup.value && efficiency.value);
  EXPECT_DOUBLE_EQ(*speedup.value, 3.2);
  EXPECT_DOUBLE_EQ(*efficiency.value, 80.0);
  EXPECT_TRUE(speedup.reliable && efficiency.reliable);
  // 0.95 s: 105 % efficiency, superlinear: both flagged, the speedup naming the efficiency whose
  // reason it takes (that reason's interval is the efficiency's, in %).
  const auto [fast, super] =
      speedup_and_efficiency("x", stats(4, 3.9, 4.1), stats(0.95, 0.94, 0.96), 0.25, "s", "e");
  EXPECT_FALSE(fast.reliable || super.reliable);
  EXPECT_EQ(super.unreliable_because,
            "superlinear (above 100 %): noise or cache effects, not a real speedup");
  EXPECT_EQ(fast.unreliable_because, "efficiency_x is flagged: " + super.unreliable_because);
  EXPECT_FALSE(speedup_and_efficiency("x", stats(4, 4, 4), stats(0, 0, 0), 1, "s", "e").first.value);
}

TEST(Checks, ToleranceAndTheirJoin) {
  Check c = tolerance_check("err = ", 1e-7, 1e-5);
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.detail, "err = 1e-07 <= 1e-05");
  EXPECT_FALSE(tolerance_check("err = ", 2e-5, 1e-5).passed);
  EXPECT_FALSE(tolerance_check("err = ", std::nan(""), 1e-5).passed) << "NaN is no result";
  c.also(tolerance_check("other ", 3, 2));
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.detail, "err = 1e-07 <= 1e-05; other 3 > 2");
}

// One choice's cost with everything else held fixed: each slow row against the one row that
// differs from it only in the parameter; rows without such a twin, or with another value, give
// nothing; the name is filled from the slow row.
TEST(Findings, HeldFixedRatiosPairRowsThatDifferInOneParameterOnly) {
  const auto row = [](int index, DType dtype, const std::string& data, const std::string& loss,
                      double median) {
    CaseResult r;
    r.case_index = index;
    r.spec.dtype = dtype;
    r.spec.device = cpu();
    r.spec.params = {{"data", data}, {"loss", loss}};
    r.seconds.median = median;
    return r;
  };
  const std::vector<CaseResult> rows = {
      row(1, DType::f32, "copy", "sync", 6.0),     row(2, DType::f32, "copy", "device", 3.0),
      row(3, DType::f32, "resident", "sync", 4.0), row(4, DType::f32, "resident", "device", 2.0),
      row(5, DType::f64, "copy", "sync", 9.0),     row(6, DType::f64, "-", "-", 1.0)};
  const auto found =
      held_fixed_ratios(rows, "data", "copy", "resident", "copy_over_resident.<dtype>.loss_<loss>",
                        [](const CaseResult& slow, const CaseResult& fast) {
                          return slow.spec.param("loss") + " vs " + fast.spec.param("loss");
                        });
  ASSERT_EQ(found.size(), 2u);  // float64's copy row has no resident twin
  EXPECT_EQ(found[0].name, "copy_over_resident.float32.loss_sync");
  EXPECT_DOUBLE_EQ(*found[0].value, 6.0 / 4.0);
  EXPECT_EQ(found[0].rows, (std::vector<int>{1, 3}));
  EXPECT_EQ(found[0].note, "sync vs sync");
  EXPECT_EQ(found[1].name, "copy_over_resident.float32.loss_device");
  EXPECT_DOUBLE_EQ(*found[1].value, 3.0 / 2.0);
}

}  // namespace
}  // namespace minigpu
