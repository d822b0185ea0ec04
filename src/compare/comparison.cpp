// Matching and judging: the ratio of medians, its interval, and the verdict.
#include "compare/comparison.hpp"

#include "io/format.hpp"
#include "io/run_record.hpp"

#include <algorithm>
#include <map>

namespace minigpu::compare {
namespace {

// Keys made unique by occurrence: a repeated experiment entry's cases match in order.
template <class T, class KeyOf>
std::vector<std::string> occurrence_keys(const std::vector<T>& items, KeyOf key_of) {
  std::map<std::string, int> seen;
  std::vector<std::string> keys;
  for (const auto& item : items) {
    const std::string key = key_of(item);
    const int k = ++seen[key];
    keys.push_back(k == 1 ? key : key + " #" + std::to_string(k));
  }
  return keys;
}

// The kernel `kernel: auto` picked for the case, or "" where the input named one.
std::string auto_pick(const CaseTime& c) {
  const auto choice = c.params.find("kernel_choice");
  return choice == c.params.end() ? "" : io::auto_pick(choice->second);
}

// The case's key with auto's pick in its label read as "auto": two runs of one input whose
// `kernel: auto` picked differently (each times both kernels when it starts) still pair up.
std::string key_without_pick(const CaseTime& c) {
  const std::string pick = auto_pick(c);
  CaseTime unpicked = c;
  const auto at = pick.empty() ? std::string::npos : c.label.rfind(pick);
  const bool word = at != std::string::npos && (at == 0 || c.label[at - 1] == ' ') &&
                    (at + pick.size() == c.label.size() || c.label[at + pick.size()] == ' ');
  if (word) unpicked.label.replace(at, pick.size(), "auto");
  return unpicked.key();
}

std::string params_note(const CaseTime& a, const CaseTime& b) {
  std::vector<std::string> differ;
  const std::string pick_a = auto_pick(a), pick_b = auto_pick(b);
  const bool both_auto = !pick_a.empty() && !pick_b.empty();
  if (both_auto && pick_a != pick_b) differ.push_back("kernel: auto picked " + pick_a + " vs " + pick_b);
  for (const auto& [key, value] : a.params) {
    // Where auto chose on both sides, its pick is the difference; its reasons (when and how
    // fast each kernel timed) differ between any two runs.
    if (both_auto && (key == "kernel" || key == "kernel_choice")) continue;
    const auto other = b.params.find(key);
    if (other != b.params.end() && other->second != value)
      differ.push_back(key + " " + value + " vs " + other->second);
  }
  return differ.empty() ? "" : "parameters differ: " + io::joined(differ, ", ");
}

CaseComparison judge(const CaseTime& base, const CaseTime& cand) {
  CaseComparison c{base, cand};
  const auto [bl, bh] = base.ci95.value_or(std::pair{base.median_s, base.median_s});
  const auto [cl, ch] = cand.ci95.value_or(std::pair{cand.median_s, cand.median_s});
  c.ratio = cand.median_s / base.median_s;
  c.ci95 = {cl / bh, ch / bl};
  c.verdict = c.ci95.first > 1 ? Verdict::slower : c.ci95.second < 1 ? Verdict::faster : Verdict::same;
  std::vector<std::string> notes;
  if (const auto p = params_note(base, cand); !p.empty()) notes.push_back(p);
  if (!base.verified) notes.push_back("baseline failed verification");
  if (!cand.verified) notes.push_back("candidate failed verification");
  if (!base.ci95) notes.push_back("baseline has no interval");
  if (!cand.ci95) notes.push_back("candidate has no interval");
  c.note = io::joined(notes, "; ");
  return c;
}

// Pairs the cases left on both sides (indices into `base` and `cand`) whose `key_of` agrees,
// the k-th repeat of a key with the k-th, into `pairs` (baseline index, candidate index); what
// stays unpaired stays in the lists.
template <class KeyOf>
void match_by(const std::vector<CaseTime>& base, const std::vector<CaseTime>& cand, KeyOf key_of,
              std::vector<std::size_t>& base_left, std::vector<std::size_t>& cand_left,
              std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  const auto keyed = [&](const std::vector<CaseTime>& side, const std::vector<std::size_t>& left) {
    return occurrence_keys(left, [&](std::size_t i) { return key_of(side[i]); });
  };
  const auto base_keys = keyed(base, base_left), cand_keys = keyed(cand, cand_left);
  std::map<std::string, std::size_t> base_at;  // key -> position in base_left
  for (std::size_t i = 0; i < base_keys.size(); ++i) base_at[base_keys[i]] = i;
  std::vector<bool> base_paired(base_left.size(), false);
  std::vector<std::size_t> cand_unpaired;
  for (std::size_t i = 0; i < cand_keys.size(); ++i) {
    const auto found = base_at.find(cand_keys[i]);
    if (found == base_at.end()) {
      cand_unpaired.push_back(cand_left[i]);
      continue;
    }
    base_paired[found->second] = true;
    pairs.emplace_back(base_left[found->second], cand_left[i]);
  }
  std::vector<std::size_t> base_unpaired;
  for (std::size_t i = 0; i < base_left.size(); ++i) {
    if (!base_paired[i]) base_unpaired.push_back(base_left[i]);
  }
  base_left = std::move(base_unpaired);
  cand_left = std::move(cand_unpaired);
}

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "slower";
    case Verdict::same:
      break;
  }
  return "same within noise";
}

int Comparison::count(Verdict v) const {
  return static_cast<int>(
      std::count_if(cases.begin(), cases.end(), [v](const auto& c) { return c.verdict == v; }));
}

Comparison compare_tables(const RunTable& baseline, const RunTable& candidate) {
  Comparison out{baseline.path, baseline.description, candidate.path, candidate.description};
  if (baseline.ranks > 0 && candidate.ranks > 0 && baseline.ranks != candidate.ranks) {
    out.warnings.push_back("the sides ran on " + std::to_string(baseline.ranks) + " and " +
                           std::to_string(candidate.ranks) +
                           " ranks: cases whose work grows with the rank count are not alike");
  }
  if (!baseline.cpu.empty() && !candidate.cpu.empty() && baseline.cpu != candidate.cpu)
    out.warnings.push_back("different CPUs (" + baseline.cpu + " vs " + candidate.cpu +
                           "): ratios include the machines'");
  // A Serial build against an OpenMP one, or 1 thread against 2: every row differs for that alone.
  std::string setups;
  for (const auto& [what, base] : baseline.setup) {
    const auto cand = candidate.setup.find(what);
    if (cand != candidate.setup.end() && cand->second != base)
      setups += (setups.empty() ? "" : "; ") + what + " " + base + " vs " + cand->second;
  }
  if (!setups.empty()) out.warnings.push_back("different setups (" + setups + "): ratios include them");
  // A run stopped early (or killed) lacks cases: its side of the comparison is partial.
  for (const RunTable* side : {&baseline, &candidate}) {
    if (side->status.empty() || side->status == "complete") continue;
    out.warnings.push_back(
        side->path + " is an incomplete run (status " + side->status + ", " +
        std::to_string(side->cases.size()) + " of " +
        (side->cases_planned > 0 ? std::to_string(side->cases_planned) : std::string("?")) +
        " cases): the cases it lacks are not compared");
  }
  // Exact keys first; then the cases whose `kernel: auto` picked differently on the two sides.
  std::vector<std::size_t> base_left(baseline.cases.size()), cand_left(candidate.cases.size());
  for (std::size_t i = 0; i < base_left.size(); ++i) base_left[i] = i;
  for (std::size_t i = 0; i < cand_left.size(); ++i) cand_left[i] = i;
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  const auto exact_key = [](const CaseTime& c) { return c.key(); };
  match_by(baseline.cases, candidate.cases, exact_key, base_left, cand_left, pairs);
  match_by(baseline.cases, candidate.cases, key_without_pick, base_left, cand_left, pairs);
  std::sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  for (const auto& [b, c] : pairs) out.cases.push_back(judge(baseline.cases[b], candidate.cases[c]));
  for (const std::size_t b : base_left) out.only_baseline.push_back(baseline.cases[b]);
  for (const std::size_t c : cand_left) out.only_candidate.push_back(candidate.cases[c]);

  const auto finding_key = [](const FindingValue& f) { return f.key(); };
  const auto base_fkeys = occurrence_keys(baseline.findings, finding_key);
  const auto cand_fkeys = occurrence_keys(candidate.findings, finding_key);
  std::map<std::string, std::size_t> cand_at;
  for (std::size_t i = 0; i < cand_fkeys.size(); ++i) cand_at[cand_fkeys[i]] = i;
  for (std::size_t i = 0; i < base_fkeys.size(); ++i) {
    FindingComparison f{base_fkeys[i], baseline.findings[i], std::nullopt};
    const auto found = cand_at.find(base_fkeys[i]);
    if (found != cand_at.end()) {
      f.candidate = candidate.findings[found->second];
      cand_at.erase(found);
    }
    out.findings.push_back(f);
  }
  for (std::size_t i = 0; i < cand_fkeys.size(); ++i) {
    if (cand_at.count(cand_fkeys[i]))
      out.findings.push_back({cand_fkeys[i], std::nullopt, candidate.findings[i]});
  }
  return out;
}

std::vector<const CaseComparison*> below_threshold(const Comparison& c, double pct) {
  const double limit = 1 / (1 - pct / 100);
  std::vector<const CaseComparison*> out;
  for (const auto& pair : c.cases) {
    if (pair.ci95.first > limit || !pair.candidate.verified) out.push_back(&pair);
  }
  return out;
}

}  // namespace minigpu::compare
