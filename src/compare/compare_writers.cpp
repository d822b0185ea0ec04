// Text, JSON and CSV of a comparison; the numbers come from comparison.cpp, never recomputed.
#include "compare/compare_writers.hpp"

#include "io/format.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

namespace minigpu::compare {
namespace {

using nlohmann::json;

const char* kMethod =
    "ratio = candidate median / baseline median (> 1: candidate slower); its interval "
    "[cand_low/base_high, cand_high/base_low] from both medians' 95 % intervals (at least 90 % "
    "coverage for any distributions, wider than 95 % needs for independent runs); verdict slower or faster "
    "only when the whole interval is past 1; the intervals hold each run's own noise, not the spread between "
    "runs: two runs of one build on one machine can differ past them (docs/measuring.md)";

// Rounded outward so the printed interval holds the median; a ratio's also apart from 1, the
// verdict's mark: "slower" never beside "[1, 1.01]" (and the ratio itself apart from 1: never
// "1" beside "slower").
std::string interval_text(const std::pair<double, double>& ci, std::optional<double> mark = std::nullopt) {
  return io::interval(ci.first, ci.second, 3, mark);
}

std::string seconds_text(const CaseTime& c) {
  return io::significant(c.median_s, 3) + (c.ci95 ? " " + interval_text(*c.ci95) : "");
}

std::string finding_text(const std::optional<FindingValue>& f) {
  if (!f) return "-";
  if (!f->value) return "n/a";
  std::string out = io::significant(*f->value, 3) + (f->unit.empty() ? "" : " " + f->unit);
  if (f->ci95) out += " " + interval_text(*f->ci95);
  return out + (f->reliable ? "" : " !");
}

// Left-aligned columns, two spaces apart, widths from the widest cell.
void write_table(std::ostream& os, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << "  " << line << '\n';
  }
}

json case_time_json(const CaseTime& c) {
  json j = {{"median_s", c.median_s}, {"median_ci95_s", nullptr}, {"verified", c.verified}};
  if (c.ci95) j["median_ci95_s"] = {c.ci95->first, c.ci95->second};
  if (c.repetitions > 0) j["repetitions"] = c.repetitions;
  return j;
}

json key_json(const CaseTime& c) {
  return {{"experiment", c.experiment}, {"case", c.label}, {"device", c.device}, {"dtype", c.dtype}};
}

json finding_json(const std::optional<FindingValue>& f) {
  if (!f) return nullptr;
  json j = {
      {"value", f->value ? json(*f->value) : json(nullptr)}, {"unit", f->unit}, {"reliable", f->reliable}};
  if (f->ci95) j["ci95"] = {f->ci95->first, f->ci95->second};
  if (!f->reliable) j["unreliable_because"] = f->unreliable_because;
  if (!f->note.empty()) j["note"] = f->note;
  return j;
}

// A side's reason for a mark of the findings table, or none where that side has no such mark.
std::optional<std::string> reason_for(bool marked, const std::string& reason) {
  if (!marked) return std::nullopt;
  return reason.empty() ? std::string("(no reason recorded)") : reason;
}

// One mark's lines for one finding: one line for both sides when they give the same reason.
void write_mark(std::ostream& os, const char* mark, const std::string& key,
                const std::optional<std::string>& base, const std::optional<std::string>& cand) {
  if (base && cand && *base == *cand) {
    os << "  " << mark << ' ' << key << " (both): " << *base << '\n';
    return;
  }
  if (base) os << "  " << mark << ' ' << key << " (baseline): " << *base << '\n';
  if (cand) os << "  " << mark << ' ' << key << " (candidate): " << *cand << '\n';
}

// Each `!` and each `n/a` of the findings table with the reason its run gave, so that neither is
// read without it (a share above 100 % is noise or a cache effect, not a result; an n/a is a
// measurement this build or machine could not make).
void write_reasons(std::ostream& os, const std::vector<FindingComparison>& findings) {
  const auto flagged = [](const std::optional<FindingValue>& f) {
    return f ? reason_for(!f->reliable, f->unreliable_because) : std::nullopt;
  };
  const auto missing = [](const std::optional<FindingValue>& f) {
    return f ? reason_for(!f->value, f->note) : std::nullopt;
  };
  for (const auto& f : findings) {
    write_mark(os, "!", f.key, flagged(f.baseline), flagged(f.candidate));
    write_mark(os, "n/a", f.key, missing(f.baseline), missing(f.candidate));
  }
}

}  // namespace

void write_comparison(std::ostream& os, const Comparison& c, std::optional<double> fail_below) {
  os << "baseline:  " << c.baseline_path << "\n           " << c.baseline_description << '\n'
     << "candidate: " << c.candidate_path << "\n           " << c.candidate_description << '\n'
     << "method:    ";
  // The method's clauses one per line: it is read once, beside a wide table.
  std::string method = kMethod;
  for (auto at = method.find("; "); at != std::string::npos; at = method.find("; ", at))
    method.replace(at, 2, ";\n           ");
  os << method << '\n';
  for (const auto& w : c.warnings) os << "warning:   " << w << '\n';
  os << '\n';
  std::vector<std::vector<std::string>> rows = {{"experiment", "case", "device", "dtype", "baseline s [95 %]",
                                                 "candidate s [95 %]", "ratio [95 %]", "verdict", "note"}};
  for (const auto& p : c.cases) {
    rows.push_back({p.candidate.experiment, p.candidate.label, p.candidate.device, p.candidate.dtype,
                    seconds_text(p.baseline), seconds_text(p.candidate),
                    io::significant_apart(p.ratio, 1.0, 3) + " " + interval_text(p.ci95, 1.0),
                    to_string(p.verdict), p.note});
  }
  write_table(os, rows);
  for (const auto& [title, list] :
       {std::pair{"only in baseline", &c.only_baseline}, std::pair{"only in candidate", &c.only_candidate}}) {
    if (list->empty()) continue;
    os << '\n' << title << " (" << list->size() << "):\n";
    for (const auto& one : *list) os << "  " << one.key() << '\n';
  }
  if (!c.findings.empty()) {
    os << "\nfindings (! flagged unreliable, n/a not measured: each with its run's reason below the "
          "table):\n";
    std::vector<std::vector<std::string>> frows = {{"finding", "baseline", "candidate"}};
    for (const auto& f : c.findings)
      frows.push_back({f.key, finding_text(f.baseline), finding_text(f.candidate)});
    write_table(os, frows);
    write_reasons(os, c.findings);
  }
  os << "\n"
     << c.cases.size() << " case(s) matched: " << c.count(Verdict::slower) << " slower, "
     << c.count(Verdict::faster) << " faster, " << c.count(Verdict::same) << " the same within noise; "
     << c.only_baseline.size() << " only in baseline, " << c.only_candidate.size() << " only in candidate\n";
  if (fail_below) {
    const auto failing = below_threshold(c, *fail_below);
    os << "--fail-below " << io::significant(*fail_below, 3) << ": " << failing.size() << " case(s) below "
       << io::significant(100 - *fail_below, 3) << " % of the baseline's speed beyond noise, or unverified"
       << (failing.empty() ? "" : ":") << '\n';
    for (const auto* p : failing) os << "  " << p->candidate.key() << '\n';
  }
}

json comparison_json(const Comparison& c, std::optional<double> fail_below) {
  json out = {{"baseline", {{"path", c.baseline_path}, {"description", c.baseline_description}}},
              {"candidate", {{"path", c.candidate_path}, {"description", c.candidate_description}}},
              {"method", kMethod},
              {"cases", json::array()},
              {"only_in_baseline", json::array()},
              {"only_in_candidate", json::array()},
              {"findings", json::array()},
              {"warnings", c.warnings}};
  for (const auto& p : c.cases) {
    json j = key_json(p.candidate);
    j["baseline"] = case_time_json(p.baseline);
    j["candidate"] = case_time_json(p.candidate);
    j["ratio"] = p.ratio;
    j["ratio_ci95"] = {p.ci95.first, p.ci95.second};
    j["verdict"] = to_string(p.verdict);
    j["note"] = p.note;
    out["cases"].push_back(j);
  }
  for (const auto& one : c.only_baseline) out["only_in_baseline"].push_back(key_json(one));
  for (const auto& one : c.only_candidate) out["only_in_candidate"].push_back(key_json(one));
  for (const auto& f : c.findings)
    out["findings"].push_back({{"finding", f.key},
                               {"baseline", finding_json(f.baseline)},
                               {"candidate", finding_json(f.candidate)}});
  out["summary"] = {{"matched", c.cases.size()},
                    {"slower", c.count(Verdict::slower)},
                    {"faster", c.count(Verdict::faster)},
                    {"same", c.count(Verdict::same)},
                    {"only_in_baseline", c.only_baseline.size()},
                    {"only_in_candidate", c.only_candidate.size()}};
  if (fail_below) {
    json failing = json::array();
    for (const auto* p : below_threshold(c, *fail_below)) failing.push_back(key_json(p->candidate));
    out["fail_below"] = {{"percent", *fail_below}, {"failing", failing}};
  }
  return out;
}

std::string comparison_csv(const Comparison& c) {
  std::ostringstream os;
  os << "experiment,case,device,dtype,baseline_median_s,baseline_ci95_low_s,baseline_ci95_high_s,"
        "candidate_median_s,candidate_ci95_low_s,candidate_ci95_high_s,ratio,ratio_ci95_low,ratio_ci95_high,"
        "verdict,note\n";
  const auto key = [&os](const CaseTime& t) {
    os << io::csv_field(t.experiment) << ',' << io::csv_field(t.label) << ',' << io::csv_field(t.device)
       << ',' << io::csv_field(t.dtype);
  };
  const auto times = [&os](const CaseTime& t) {
    os << ',' << io::csv_number(t.median_s) << ',' << (t.ci95 ? io::csv_number(t.ci95->first) : "") << ','
       << (t.ci95 ? io::csv_number(t.ci95->second) : "");
  };
  for (const auto& p : c.cases) {
    key(p.candidate);
    times(p.baseline);
    times(p.candidate);
    os << ',' << io::csv_number(p.ratio) << ',' << io::csv_number(p.ci95.first) << ','
       << io::csv_number(p.ci95.second) << ',' << io::csv_field(to_string(p.verdict)) << ','
       << io::csv_field(p.note) << '\n';
  }
  for (const auto& t : c.only_baseline) {
    key(t);
    times(t);
    os << ",,,,,,,only_in_baseline,\n";
  }
  for (const auto& t : c.only_candidate) {
    key(t);
    os << ",,,";
    times(t);
    os << ",,,,only_in_candidate,\n";
  }
  return os.str();
}

}  // namespace minigpu::compare
