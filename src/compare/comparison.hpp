// Two runs (or a run and a reference) matched case by case: the time ratio of each pair with
// its 95 % interval and a verdict, the cases only one side has, and the findings side by side.
#pragma once

#include "compare/run_table.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace minigpu::compare {

enum class Verdict { faster, slower, same };
const char* to_string(Verdict v);

/// A case both sides have. ratio = candidate median / baseline median (> 1: the candidate is
/// slower). Its interval is [cand_low / base_high, cand_high / base_low]: every ratio of a
/// value in one median's 95 % interval to a value in the other's (a side without an interval
/// counts as its median alone). It covers the true ratio whenever both intervals cover their
/// medians, which happens with probability at least 90 % for any distributions (Bonferroni:
/// 1 - 0.05 - 0.05), and wider than a 95 % interval needs to be when the two runs' errors are
/// independent (about 99 % for symmetric ones): a verdict drawn from it is conservative.
struct CaseComparison {
  CaseTime baseline, candidate;
  double ratio = 1;
  std::pair<double, double> ci95{1, 1};
  /// slower: the whole interval above 1; faster: the whole interval below 1; else the same
  /// within noise.
  Verdict verdict = Verdict::same;
  /// Why the pair deserves a second look: differing parameters, an unverified side, a side
  /// without an interval. Empty when nothing.
  std::string note{};
};

/// A finding named on either side; a side that lacks it is empty.
struct FindingComparison {
  std::string key;  ///< experiment.name
  std::optional<FindingValue> baseline, candidate;
};

struct Comparison {
  std::string baseline_path, baseline_description, candidate_path, candidate_description;
  std::vector<CaseComparison> cases{};  ///< in the candidate's order
  std::vector<CaseTime> only_baseline{}, only_candidate{};
  std::vector<FindingComparison> findings{};  ///< baseline's order, then the candidate's own
  /// Why the two sides may not be alike: different rank counts or CPUs.
  std::vector<std::string> warnings{};
  int count(Verdict v) const;
};

/// Matches cases by experiment, case, device and dtype (the k-th repeat of a key with the
/// k-th), then pairs the cases left whose labels differ only in the kernel `kernel: auto`
/// picked (each run picks the faster at its start; the pair's note says so); and findings by
/// experiment and name.
Comparison compare_tables(const RunTable& baseline, const RunTable& candidate);

/// The health check of --fail-below PCT: the pairs whose candidate is slower than the
/// baseline by more than PCT % beyond noise, i.e. even the favourable end of the interval is
/// past it: speed (1 / ratio) below 1 - PCT/100 over the whole interval (ci95.first >
/// 1 / (1 - PCT/100)); and every pair whose candidate failed verification. 0 <= PCT < 100.
std::vector<const CaseComparison*> below_threshold(const Comparison& c, double pct);

}  // namespace minigpu::compare
