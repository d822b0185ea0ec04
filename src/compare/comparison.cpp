// Matching and judging: the ratio of medians, its interval, and the verdict.
#include "compare/comparison.hpp"

#include "io/format.hpp"

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

std::string params_note(const CaseTime& a, const CaseTime& b) {
  std::vector<std::string> differ;
  for (const auto& [key, value] : a.params) {
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
  // A run stopped early (or killed) lacks cases: its side of the comparison is partial.
  for (const RunTable* side : {&baseline, &candidate}) {
    if (side->status.empty() || side->status == "complete") continue;
    out.warnings.push_back(
        side->path + " is an incomplete run (status " + side->status + ", " +
        std::to_string(side->cases.size()) + " of " +
        (side->cases_planned > 0 ? std::to_string(side->cases_planned) : std::string("?")) +
        " cases): the cases it lacks are not compared");
  }
  const auto case_key = [](const CaseTime& c) { return c.key(); };
  const auto base_keys = occurrence_keys(baseline.cases, case_key);
  const auto cand_keys = occurrence_keys(candidate.cases, case_key);
  std::map<std::string, std::size_t> base_at;
  for (std::size_t i = 0; i < base_keys.size(); ++i) base_at[base_keys[i]] = i;
  std::vector<bool> base_matched(base_keys.size(), false);
  for (std::size_t i = 0; i < cand_keys.size(); ++i) {
    const auto found = base_at.find(cand_keys[i]);
    if (found == base_at.end()) {
      out.only_candidate.push_back(candidate.cases[i]);
      continue;
    }
    base_matched[found->second] = true;
    out.cases.push_back(judge(baseline.cases[found->second], candidate.cases[i]));
  }
  for (std::size_t i = 0; i < base_keys.size(); ++i) {
    if (!base_matched[i]) out.only_baseline.push_back(baseline.cases[i]);
  }

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
