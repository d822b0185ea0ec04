// Records of a run (cases, their measurements and conclusions): what writers write.
#pragma once

#include "core/device.hpp"
#include "core/reference_error.hpp"
#include "core/shape.hpp"
#include "io/format.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace minigpu {

/// Work of one repetition, turned into GB/s and GFLOP/s by the runner.
struct Work {
  double bytes = 0;
  double flops = 0;
};

/// One measured configuration: a row of results.csv.
struct CaseSpec {
  std::size_t index = 0;  ///< the case's position in its experiment's own typed case list
  std::string label;      ///< short, for the console
  /// Tidy columns for results.csv and run.json, in order: derived from the typed case,
  /// never parsed back.
  std::vector<std::pair<std::string, std::string>> params;
  Device device;
  DType dtype = DType::f32;
  /// False only where the lesson is what happens without a fence (the `lazy` mistake):
  /// the runner then stops the clock without Kokkos::fence().
  bool fence_after_run = true;
  /// Device memory the case allocates on each rank; checked before anything is allocated.
  std::uint64_t device_bytes = 0;
  /// The experiment's input key whose value sets device_bytes (e.g. "sizes"), so that a
  /// case refused for its memory points at the line that asked for it.
  std::string size_key;
  /// The measured ceiling (ceilings/ceilings.hpp) that bounds this case's rate, "" for none,
  /// and how many of it the case may reach (p ranks each on its own device: p).
  std::string ceiling;
  int ceiling_scale = 1;
  /// The arithmetic peak (ceilings' FMA peak) the rate is also a share of, "" for none.
  std::string peak;
  /// Flops the busiest rank does per repetition, where cheap to know before setup(): for
  /// --dry-run's run-time estimate only (0: estimated from device_bytes alone).
  double flops_estimate = 0;
  /// False on a rank that sits this case out by design (ranks beyond p in a scaling case, a
  /// rank without a partner in a transfer case): an idle rank is nobody's yardstick, so
  /// stragglers and the spread over ranks are judged among the working ranks alone.
  bool this_rank_works = true;
  /// Bytes moved and flops done by one repetition, all ranks together: the experiment's
  /// accounting, declared with the case (as RAJAPerf's kernels declare theirs) so that the
  /// runner turns times into rates without asking the experiment again.
  Work work;

  /// The value of column `key`, or "" when the case has none (for writers and tests).
  std::string param(const std::string& key) const {
    for (const auto& [k, v] : params) {
      if (k == key) return v;
    }
    return {};
  }
};

/// Outcome of checking a case against an independent reference.
struct Check {
  Check() = default;
  Check(bool passed_, std::string detail_, std::optional<ReferenceError> error_ = std::nullopt)
      : passed(passed_), detail(std::move(detail_)), error(error_) {}

  bool passed = false;
  std::string detail;  ///< e.g. "max rel err 3e-7 <= 1e-5"
  /// The error against float64 where the check measured one (results.csv's error_* columns).
  std::optional<ReferenceError> error;

  /// Both must pass; the details joined by "; ".
  void also(const Check& other) {
    passed = passed && other.passed;
    detail += "; " + other.detail;
  }
};

/// Passed when err <= tol (NaN fails); the detail reads `what` then "3e-07 <= 1e-05" (or " > ").
inline Check tolerance_check(const std::string& what, double err, double tol) {
  const bool within = err <= tol;
  return {within, what + io::significant(err, 2) + (within ? " <= " : " > ") + io::significant(tol, 2)};
}

/// Passed when no entry differs from `reference` (compared exactly); the detail reads "exact
/// match with host triple loop" or "3 entries differ from host triple loop" ("3 of 4096 entries"
/// when `total` is given).
inline Check exact_match_check(std::int64_t wrong, const std::string& reference, std::int64_t total = 0) {
  if (wrong == 0) return {true, "exact match with " + reference};
  return {false, std::to_string(wrong) + (total > 0 ? " of " + std::to_string(total) : "") +
                     " entries differ from " + reference};
}

/// Summary statistics of a sample of seconds.
struct Stats {
  double min = 0, median = 0, mean = 0, max = 0;
  /// Coefficient of variation: sample standard deviation / mean (0 for one sample).
  double cv = 0;
  /// A distribution-free 95 % confidence interval of the median: order statistics x(l) and
  /// x(n+1-l) with l from Binomial(n, 1/2). Below 6 samples no such pair reaches 95 %, and
  /// the interval is [min, max] (coverage 1 - 2^(1-n): 94 % at 5, 75 % at 3).
  double median_ci_low = 0, median_ci_high = 0;
  /// Half the interval's wider side as a percentage of the median: the console's ±%.
  double median_ci_percent() const {
    return median > 0 ? 100 * std::max(median - median_ci_low, median_ci_high - median) / median : 0;
  }
};

/// Appends `why` to a "; "-separated list of reasons and clears `reliable`.
inline void add_unreliable_reason(bool& reliable, std::string& because, const std::string& why) {
  because += (reliable ? "" : "; ") + why;
  reliable = false;
}

/// A ceiling as a row counting it `scale` times names it: "2 x host memcpy"; counted once, `what`.
inline std::string counted_times(int scale, const std::string& what) {
  return scale > 1 ? std::to_string(scale) + " x " + what : what;
}

/// A row's rate against the machine's own bound for it ("of host memcpy").
struct CeilingShare {
  std::string name;   ///< the ceiling's key in run.json's "ceilings"
  std::string label;  ///< what the percentage is of, e.g. "host memcpy", "2 x OpenBLAS sgemm"
  double percent = 0;
  int scale = 1;  ///< the ceiling counted this many times (p ranks, each on its own device)
  /// Above 100 % only: why the row passes its bound (data in cache, a ceiling measured low).
  std::string above_because{};
};

/// A measured, verified case as the runner reports it.
struct CaseResult {
  std::string experiment;
  CaseSpec spec;
  int repetitions = 0;
  /// Why repeating stopped: "repetitions" (the count asked for), "target_cv" (the spread was
  /// small enough), "max_time_s" (the time was spent) or "max_repetitions".
  std::string repetitions_stopped_by = "repetitions";
  Stats seconds;                ///< over repetitions, each the max over ranks (the parallel wall time)
  std::vector<double> samples;  ///< those per-repetition seconds, in the order they ran
  Stats rank_means;             ///< the working ranks' mean seconds (CaseSpec::this_rank_works), summarised
  Work work;
  double gbps = 0;
  double gflops = 0;
  Check check;
  int case_index = 0;
  /// Named parts of a repetition (e.g. compute, comm), each over repetitions like `seconds`.
  std::vector<std::pair<std::string, Stats>> phases;
  /// Figures the experiment derives for the row once its cases ran (Experiment::annotate),
  /// e.g. a model's prediction, in the experiment's order; nullopt where it cannot say.
  std::vector<std::pair<std::string, std::optional<double>>> values;
  /// The rate (gbps or gflops, whichever the case does) as a share of its ceiling, if any.
  std::optional<CeilingShare> ceiling;
  /// A GEMM row's GFLOP/s as a share of the arithmetic peak of the type it computes in (the
  /// FMA units', ceilings/ceilings.hpp), where measured: what no kernel can pass.
  std::optional<CeilingShare> peak;
  /// False when the row's own spread or the machine makes its figure doubtful.
  bool reliable = true;
  std::string unreliable_because{};

  void mark_unreliable(const std::string& why) { add_unreliable_reason(reliable, unreliable_because, why); }
  /// What the runner appends to the check of a row carried over by --resume.
  static constexpr const char* kResumedMark = " [resumed]";
  /// Whether an earlier process measured this row (a --resume carried it over).
  bool resumed() const { return resumes_since_measured() > 0; }
  /// How many resumes ago this row was measured: 0 in this run, 1 carried over by this --resume,
  /// 2 by the one before it too (each resume appends the mark to the check it carries over).
  int resumes_since_measured() const {
    int marks = 0;
    for (auto at = check.detail.find(kResumedMark); at != std::string::npos;
         at = check.detail.find(kResumedMark, at + 1))
      ++marks;
    return marks;
  }
  /// The median seconds of phase `name`, if the row has that phase.
  std::optional<double> phase_median(const std::string& name) const {
    const Stats* s = phase(name);
    return s ? std::optional<double>(s->median) : std::nullopt;
  }
  /// Phase `name`'s times, or null if the row has no such phase.
  const Stats* phase(const std::string& name) const {
    for (const auto& [n, stats] : phases) {
      if (n == name) return &stats;
    }
    return nullptr;
  }
  /// The derived figure `name` (values), if the row has it and it is known.
  std::optional<double> value(const std::string& name) const {
    for (const auto& [n, v] : values) {
      if (n == name) return v;
    }
    return std::nullopt;
  }
};

/// A conclusion drawn across cases (a ratio, a crossover size), reported beside the rows.
struct Finding {
  std::string experiment;
  std::string name;
  /// Empty when the finding does not apply here (no GPU, no crossover in the swept sizes):
  /// `note` then says why. Never a 0 standing in for "nothing".
  std::optional<double> value;
  std::string unit;
  std::string note;
  /// The value's 95 % interval [low, high] where the finding can say (efficiencies, ratios).
  std::optional<std::pair<double, double>> ci95{};
  /// False when noise or the machine may explain the figure (intervals that overlap, a
  /// superlinear efficiency, more ranks than cores): `unreliable_because` says which.
  bool reliable = true;
  std::string unreliable_because{};
  /// The rows (CaseResult::case_index) the figure is drawn from. Every finding with a value
  /// names them, and the runner flags it whenever one of them is unreliable: a figure is only
  /// as good as the rows beneath it.
  std::vector<int> rows{};
  /// Of those, the rows whose share of their ceiling the note quotes (ceiling_note): a share
  /// above 100 % is past a bound the row cannot pass, and flags the finding that quotes it.
  std::vector<int> quoted_shares{};

  void mark_unreliable(const std::string& why) { add_unreliable_reason(reliable, unreliable_because, why); }
  /// Names the rows the figure is drawn from (nulls are skipped).
  Finding& drawn_from(std::initializer_list<const CaseResult*> from) {
    return drawn_from(std::vector<const CaseResult*>(from));
  }
  Finding& drawn_from(const std::vector<const CaseResult*>& from) {
    for (const CaseResult* r : from) {
      if (r && std::find(rows.begin(), rows.end(), r->case_index) == rows.end())
        rows.push_back(r->case_index);
    }
    return *this;
  }
  /// drawn_from(r), the note quoting r's share of its ceiling (ceiling_note).
  Finding& quoting_share_of(const CaseResult& r) {
    quoted_shares.push_back(r.case_index);
    return drawn_from({&r});
  }
};

/// ", 41 % of host memcpy" for a finding that quotes a row's rate, "" when it has no ceiling.
/// A share is never rounded onto its bound: 99.87 % reads "99.9", 100.4 % "100.4", and only
/// the bound itself "100".
inline std::string ceiling_note(const CaseResult& r) {
  const auto share = [](const CeilingShare& c) {
    const double p = c.percent;
    return ", " + (p >= 10 ? io::significant_apart(p, 100, 2) : io::significant(p, 2)) + " % of " + c.label;
  };
  return (r.ceiling ? share(*r.ceiling) : "") + (r.peak ? share(*r.peak) : "");
}

/// median(numerator) / median(denominator), flagged unreliable when the two medians' 95 %
/// intervals overlap (the ratio's side of 1 is then not established); drawn from both rows.
/// Its interval, [low(num) / high(den), high(num) / low(den)] as `minigpu compare` draws a
/// ratio's, holds 1 exactly when the two overlap, and still says which side of another bar the
/// ratio lies on (scripts/dev/bench_findings.py: SUMMA at most 1.11x ScaLAPACK at p = 1).
inline Finding ratio_finding(const std::string& name, const CaseResult& numerator_row,
                             const CaseResult& denominator_row, const std::string& note) {
  const Stats &numerator = numerator_row.seconds, &denominator = denominator_row.seconds;
  Finding f{"", name, std::nullopt, "x", note};
  f.drawn_from({&numerator_row, &denominator_row});
  if (denominator.median > 0) f.value = numerator.median / denominator.median;
  if (f.value && denominator.median_ci_low > 0 && denominator.median_ci_high > 0) {
    f.ci95 = std::pair{numerator.median_ci_low / denominator.median_ci_high,
                       numerator.median_ci_high / denominator.median_ci_low};
  }
  if (numerator.median_ci_low <= denominator.median_ci_high &&
      denominator.median_ci_low <= numerator.median_ci_high) {
    f.mark_unreliable("the two medians' 95 % intervals overlap");
  }
  return f;
}

/// A parallel efficiency, 100·work_ratio·t(reference)/t(measured) % (ideal 100), with the 95 %
/// interval the two medians' intervals allow, in the note. Flagged when that interval reaches
/// above 100 %: superlinear scaling is then not excluded, so the figure cannot be told from
/// noise or cache effects. Every efficiency finding is made here, so this is the one place
/// that flags a superlinear one.
inline Finding efficiency_finding(const std::string& name, const Stats& reference, const Stats& measured,
                                  double work_ratio, std::string note) {
  Finding f{"", name, std::nullopt, "%", std::move(note)};
  if (reference.median <= 0 || measured.median <= 0) return f;
  f.value = 100 * work_ratio * reference.median / measured.median;
  const double low =
      measured.median_ci_high > 0 ? 100 * work_ratio * reference.median_ci_low / measured.median_ci_high : 0;
  const double high = measured.median_ci_low > 0
                          ? 100 * work_ratio * reference.median_ci_high / measured.median_ci_low
                          : *f.value;
  f.ci95 = std::pair{low, high};
  // Rounded outward, and apart from 100 %: the printed interval holds the median and says which
  // side of the ideal it reaches.
  const std::string interval = io::interval(low, high, 3, 100.0) + " %";
  f.note += "; 95 % interval " + interval;
  if (*f.value > 100) {
    f.mark_unreliable("superlinear (above 100 %): noise or cache effects, not a real speedup");
  } else if (high > 100) {
    f.mark_unreliable("its 95 % interval " + interval +
                      " reaches above 100 %: not told apart from superlinear");
  }
  return f;
}
/// The same of two rows' times, drawn from both.
inline Finding efficiency_finding(const std::string& name, const CaseResult& reference_row,
                                  const CaseResult& measured_row, double work_ratio, std::string note) {
  Finding f =
      efficiency_finding(name, reference_row.seconds, measured_row.seconds, work_ratio, std::move(note));
  f.drawn_from({&reference_row, &measured_row});
  return f;
}

/// speedup_<suffix> = t(reference)/t(measured) and efficiency_<suffix> (efficiency_finding with
/// `work_ratio`), in that order. The speedup is the same measurement as the efficiency, so it
/// stands or falls with it: flagged whenever the efficiency is, naming it (the efficiency's
/// reason speaks of its own interval, in %, not of the speedup's).
inline std::pair<Finding, Finding> speedup_and_efficiency(const std::string& suffix, const Stats& reference,
                                                          const Stats& measured, double work_ratio,
                                                          std::string speedup_note,
                                                          std::string efficiency_note) {
  Finding efficiency =
      efficiency_finding("efficiency_" + suffix, reference, measured, work_ratio, std::move(efficiency_note));
  Finding speedup{"", "speedup_" + suffix, std::nullopt, "x", std::move(speedup_note)};
  if (measured.median > 0) speedup.value = reference.median / measured.median;
  if (!efficiency.reliable)
    speedup.mark_unreliable(efficiency.name + " is flagged: " + efficiency.unreliable_because);
  return {speedup, efficiency};
}
/// The same of two rows' times, both findings drawn from both rows.
inline std::pair<Finding, Finding> speedup_and_efficiency(const std::string& suffix,
                                                          const CaseResult& reference,
                                                          const CaseResult& measured, double work_ratio,
                                                          std::string speedup_note,
                                                          std::string efficiency_note) {
  auto found = speedup_and_efficiency(suffix, reference.seconds, measured.seconds, work_ratio,
                                      std::move(speedup_note), std::move(efficiency_note));
  found.first.drawn_from({&reference, &measured});
  found.second.drawn_from({&reference, &measured});
  return found;
}

}  // namespace minigpu
