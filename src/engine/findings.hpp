// What findings() does with results before it says anything: group the rows, pick the best
// of a group, find the row of one mode. Written once here so that an experiment's findings()
// reads as which rows it compares and what it says about them.
#pragma once

#include "core/shape.hpp"
#include "io/results.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <type_traits>
#include <utility>
#include <vector>

namespace minigpu {

using ResultRows = std::vector<const CaseResult*>;

/// Rows grouped by key_of(row); groups in the order of their first row (the case order), so
/// findings come out in the order the cases ran.
template <class KeyOf>
auto group_rows(const std::vector<CaseResult>& results, KeyOf key_of) {
  using Key = std::decay_t<decltype(key_of(std::declval<const CaseResult&>()))>;
  std::vector<std::pair<Key, ResultRows>> groups;
  for (const auto& r : results) {
    Key key = key_of(r);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.push_back({std::move(key), {&r}});
    } else {
      it->second.push_back(&r);
    }
  }
  return groups;
}

/// A row, from the results or from a group of them.
inline const CaseResult& row_at(const CaseResult& r) { return r; }
inline const CaseResult& row_at(const CaseResult* r) { return *r; }

/// Each row (of the results, or of ResultRows) filed under group_of(row) and then mode_of(row),
/// groups and modes in key order; a later row of the same group and mode replaces an earlier
/// one (a repeated case: the last run).
template <class Rows, class GroupOf, class ModeOf>
auto rows_by_mode(const Rows& rows, GroupOf group_of, ModeOf mode_of) {
  using Group = std::decay_t<decltype(group_of(std::declval<const CaseResult&>()))>;
  using Mode = std::decay_t<decltype(mode_of(std::declval<const CaseResult&>()))>;
  std::map<Group, std::map<Mode, const CaseResult*>> out;
  for (const auto& item : rows) {
    const CaseResult& r = row_at(item);
    out[group_of(r)][mode_of(r)] = &r;
  }
  return out;
}

/// The row filed under `mode`, or null when that mode did not run.
template <class Mode>
const CaseResult* row_of(const std::map<Mode, const CaseResult*>& modes, const Mode& mode) {
  const auto it = modes.find(mode);
  return it == modes.end() ? nullptr : it->second;
}

/// The row with the highest `rate` (&CaseResult::gbps or &CaseResult::gflops), the first of
/// equals; null for no rows.
const CaseResult* best_row(const ResultRows& rows, double CaseResult::*rate);

/// The best row (best_row) of each key_of(row), keys in key order.
template <class KeyOf>
auto best_rows(const std::vector<CaseResult>& results, KeyOf key_of, double CaseResult::*rate) {
  using Key = std::decay_t<decltype(key_of(std::declval<const CaseResult&>()))>;
  std::map<Key, const CaseResult*> best;
  for (auto& [key, rows] : group_rows(results, key_of)) best[std::move(key)] = best_row(rows, rate);
  return best;
}

/// Where one side of a comparison overtakes the other over a sweep of sizes, from each size's
/// median seconds on the two sides (size -> {first side, second side}).
struct Crossover {
  std::vector<std::int64_t> sizes;  ///< the sizes where both sides have a positive median, increasing
  /// The index in `sizes` of the smallest size from which the second side is faster at every
  /// larger size; sizes.size() when it is not faster at the largest (no crossover).
  std::size_t first = 0;
  bool found() const { return first < sizes.size(); }
  /// The rows that decide it (find_crossover of rows): at the size below `first` and every
  /// size from there up, both sides. A finding drawn from the crossover is drawn from these.
  std::vector<const CaseResult*> deciding{};
};
Crossover find_crossover(const std::map<std::int64_t, std::pair<double, double>>& seconds);
/// The finding `name` (unit n) for a crossover from side `first` to side `second` ("cpu", "gpu"):
/// the size from which `second` wins at every larger size, with a note saying how the sweep
/// decided it (or that `first` won everywhere: no value), drawn from the deciding rows.
Finding crossover_finding(const std::string& name, const Crossover& x, const std::string& first,
                          const std::string& second);
/// Exercise 1's crossover from the cpu to a gpu: crossover_finding(name, x, "cpu", "gpu"), its
/// note saying what "the cpu" was (cpu_threads_note); on emulated GPUs, which are the same
/// host, also that it reflects noise, and marked unreliable for it.
Finding cpu_gpu_crossover_finding(const std::string& name, const Crossover& x);
/// "; cpu = 2 host threads of this rank": how much of the CPU a cpu row of this rank had.
std::string cpu_threads_note();
/// What a precision below float32 buys, per size: speedup_<precision>_over_float32_<kernel>_<cpu|gpu>_n<n>,
/// float32's median time over the row's (ratio_finding), for each row with params `variant` and
/// `n` (matmul's) whose float32 row of the same kernel, device kind and n ran; a variant
/// <kernel>_tf32 is float32 through TF32 on <kernel>. The note gives the row's error against
/// float64, the price of the speed.
std::vector<Finding> precision_speedup_findings(const std::vector<CaseResult>& results);
/// What one choice costs with everything else held fixed: for each row whose parameter `param`
/// is `slow` and the row that differs from it only there (`fast`: same dtype, device and other
/// parameters), ratio_finding(name, slow row, fast row, note_of(slow, fast)), in the order the
/// slow rows ran. In `name` "<dtype>" is the rows' dtype and "<p>" their parameter p
/// ("sync_each_batch_over_on_device_loss.<dtype>.data_<data>").
using PairNote = std::function<std::string(const CaseResult& slow, const CaseResult& fast)>;
std::vector<Finding> held_fixed_ratios(const std::vector<CaseResult>& results, const std::string& param,
                                       const std::string& slow, const std::string& fast,
                                       const std::string& name, const PairNote& note_of);
/// find_crossover of rows, each at size_of(row), on the second side where second_side(row).
template <class SizeOf, class SecondSide>
Crossover find_crossover(const ResultRows& rows, SizeOf size_of, SecondSide second_side) {
  std::map<std::int64_t, std::pair<double, double>> seconds;
  for (const CaseResult* r : rows) {
    auto& slot = seconds[size_of(*r)];
    (second_side(*r) ? slot.second : slot.first) = r->seconds.median;
  }
  Crossover x = find_crossover(seconds);
  if (x.sizes.empty()) return x;
  const std::int64_t from = x.sizes[x.first == 0 ? 0 : x.first - 1];
  for (const CaseResult* r : rows) {
    if (size_of(*r) >= from) x.deciding.push_back(r);
  }
  return x;
}

/// A finding is only as good as the rows it is drawn from (Finding::rows): flagged unreliable,
/// with each row's reason, when any of them is, and when its rows come from two runs (some
/// carried over by --resume, some measured now). The runner applies it to every finding, so a
/// new experiment inherits the rule. Throws std::logic_error for a finding with a value that
/// names no row, or a row not among `rows`: an experiment's bug.
void inherit_unreliable_rows(Finding& f, const std::vector<CaseResult>& rows);

/// The dtypes the results hold, each once, in the order they first appear.
std::vector<DType> dtypes_of(const std::vector<CaseResult>& results);

/// A row's dtype: the usual first key of rows_by_mode.
inline DType row_dtype(const CaseResult& r) { return r.spec.dtype; }

/// A figure read off one row (its peak rate, its latency), drawn from it. With `quote_share`
/// the note ends in the row's share of its ceiling (ceiling_note), which flags the finding when
/// it is past 100 % (Finding::quoting_share_of).
inline Finding row_finding(const std::string& name, double value, const std::string& unit,
                           const CaseResult& row, const std::string& note, bool quote_share = false) {
  Finding f{"", name, value, unit, note + (quote_share ? ceiling_note(row) : "")};
  return quote_share ? f.quoting_share_of(row) : f.drawn_from({&row});
}

/// A finding the run cannot give because it has fewer ranks than `needed`: no value, and a
/// note saying what it needs (`what`: "rank-to-rank cases", "k GPUs at once").
inline Finding needs_ranks(const std::string& name, const std::string& unit, const std::string& what,
                           int needed, int have) {
  return {"", name, std::nullopt, unit,
          what + " need " + std::to_string(needed) + " or more ranks (mpirun -np " + std::to_string(needed) +
              "); this run has " + std::to_string(have)};
}

/// True when the row exists and has a positive median: a time a ratio may divide by.
inline bool has_median(const CaseResult* r) { return r != nullptr && r->seconds.median > 0; }

}  // namespace minigpu
