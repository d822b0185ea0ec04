// Row picking for findings(): see findings.hpp.
#include "engine/findings.hpp"

#include "core/backend.hpp"
#include "core/device.hpp"

#include "io/format.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>
#include <tuple>

namespace minigpu {

const CaseResult* best_row(const ResultRows& rows, double CaseResult::*rate) {
  const CaseResult* best = nullptr;
  // Strictly greater: on a tie the earlier case stays, as a reader scanning the table would pick.
  for (const CaseResult* r : rows) {
    if (!best || r->*rate > best->*rate) best = r;
  }
  return best;
}

Crossover find_crossover(const std::map<std::int64_t, std::pair<double, double>>& seconds) {
  Crossover out;
  std::vector<bool> second_wins;
  for (const auto& [size, t] : seconds) {
    if (t.first > 0 && t.second > 0) {
      out.sizes.push_back(size);
      second_wins.push_back(t.second < t.first);
    }
  }
  // Back from the largest size while the second side keeps winning.
  out.first = out.sizes.size();
  while (out.first > 0 && second_wins[out.first - 1]) --out.first;
  return out;
}

void inherit_unreliable_rows(Finding& f, const std::vector<CaseResult>& rows) {
  if (!f.value) return;
  if (f.rows.empty())
    throw std::logic_error("finding " + f.experiment + "." + f.name + " names no row it is drawn from");
  // A row of each run the rows come from, by resumes since (CaseResult::resumes_since_measured).
  std::map<int, const CaseResult*> by_run;
  for (int index : f.rows) {
    const auto row =
        std::find_if(rows.begin(), rows.end(), [&](const CaseResult& r) { return r.case_index == index; });
    if (row == rows.end())
      throw std::logic_error("finding " + f.experiment + "." + f.name +
                             " names a row its experiment did not run");
    if (!row->reliable)
      f.mark_unreliable("drawn from row '" + row->spec.label + "': " + row->unreliable_because);
    by_run.emplace(row->resumes_since_measured(), &*row);
    const bool quoted = std::count(f.quoted_shares.begin(), f.quoted_shares.end(), index) > 0;
    if (quoted && row->ceiling && row->ceiling->percent > 100) {
      f.mark_unreliable("quotes " + io::significant_apart(row->ceiling->percent, 100, 3) + " % of " +
                        row->ceiling->label +
                        ", a bound the row cannot pass: " + row->ceiling->above_because);
    }
  }
  // Rows of two processes, minutes or days apart, compare two states of the machine (clock,
  // neighbours, caches), not two cases: a 144 % efficiency after a resume was no cache effect.
  if (by_run.size() > 1) {
    const auto when = [](int resumes) {
      return resumes == 0   ? std::string("measured in this one")
             : resumes == 1 ? std::string("carried over by --resume")
                            : "carried over by " + std::to_string(resumes) + " resumes";
    };
    const auto& [earliest, earlier_row] = *by_run.rbegin();
    const auto& [latest, later_row] = *by_run.begin();
    f.mark_unreliable("compares rows of " + std::to_string(by_run.size()) + " runs: '" +
                      earlier_row->spec.label + "' " + when(earliest) + ", '" + later_row->spec.label + "' " +
                      when(latest));
  }
}

std::vector<DType> dtypes_of(const std::vector<CaseResult>& results) {
  std::vector<DType> out;
  for (const auto& r : results) {
    if (std::find(out.begin(), out.end(), r.spec.dtype) == out.end()) out.push_back(r.spec.dtype);
  }
  return out;
}

Finding crossover_finding(const std::string& name, const Crossover& x, const std::string& first,
                          const std::string& second) {
  Finding f{"", name, std::nullopt, "n", ""};
  if (!x.found()) {
    std::string side = first;  // "CPU faster at every size ...": the sentence leads with it
    for (char& c : side) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    f.note = side + " faster at every size up to " + std::to_string(x.sizes.back()) +
             ": no crossover in the sweep";
  } else if (x.first == 0) {
    f.value = static_cast<double>(x.sizes.front());
    f.note = second + " faster at every size measured, from n=" + std::to_string(x.sizes.front());
  } else {
    f.value = static_cast<double>(x.sizes[x.first]);
    f.note = first + " faster at n=" + std::to_string(x.sizes[x.first - 1]) + ", " + second +
             " faster from n=" + std::to_string(x.sizes[x.first]) + " up";
  }
  f.drawn_from(x.deciding);
  return f;
}

Finding cpu_gpu_crossover_finding(const std::string& name, const Crossover& x) {
  Finding f = crossover_finding(name, x, "cpu", "gpu");
  f.note += cpu_threads_note();
  if (gpus_are_emulated() || !kHasGpuBackend) {
    f.note +=
        "; cpu and gpu are the same physical host here (emulated GPU), so this reflects noise, not hardware";
    f.mark_unreliable("cpu and gpu are the same host (emulated GPU)");
  }
  return f;
}

std::string cpu_threads_note() {
  const int threads = HostExecSpace().concurrency();
  return "; cpu = " + std::to_string(threads) + " host thread" + (threads == 1 ? "" : "s") + " of this rank";
}

namespace {

// A row's dtype, device and parameters other than `param`: what two rows share to be compared.
std::string held_fixed_key(const CaseResult& r, const std::string& param) {
  std::string key = to_string(r.spec.dtype) + "|" + describe(r.spec.device);
  for (const auto& [k, v] : r.spec.params)
    if (k != param) key += "|" + k + "=" + v;
  return key;
}

// `pattern` with each <p> replaced by row r's parameter p, and <dtype> by its dtype.
std::string filled_name(const std::string& pattern, const CaseResult& r) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size();) {
    const std::size_t open = pattern.find('<', i), close = pattern.find('>', open);
    if (open == std::string::npos || close == std::string::npos) return out + pattern.substr(i);
    const std::string key = pattern.substr(open + 1, close - open - 1);
    out += pattern.substr(i, open - i) + (key == "dtype" ? to_string(r.spec.dtype) : r.spec.param(key));
    i = close + 1;
  }
  return out;
}

}  // namespace

std::vector<Finding> held_fixed_ratios(const std::vector<CaseResult>& results, const std::string& param,
                                       const std::string& slow, const std::string& fast,
                                       const std::string& name, const PairNote& note_of) {
  std::map<std::string, const CaseResult*> fast_rows;
  for (const CaseResult& r : results)
    if (r.spec.param(param) == fast) fast_rows[held_fixed_key(r, param)] = &r;
  std::vector<Finding> out;
  for (const CaseResult& r : results) {
    if (r.spec.param(param) != slow) continue;
    const auto match = fast_rows.find(held_fixed_key(r, param));
    if (match != fast_rows.end() && has_median(match->second))
      out.push_back(ratio_finding(filled_name(name, r), r, *match->second, note_of(r, *match->second)));
  }
  return out;
}

std::vector<Finding> precision_speedup_findings(const std::vector<CaseResult>& results) {
  const std::string tf32 = "_tf32";
  const auto key_of = [&](const CaseResult& r) {  // {gpu, kernel, n, precision}
    std::string kernel = r.spec.param("variant"), precision = to_string(r.spec.dtype);
    if (kernel.size() > tf32.size() && kernel.compare(kernel.size() - tf32.size(), tf32.size(), tf32) == 0) {
      kernel.resize(kernel.size() - tf32.size());
      precision = "tf32";
    }
    return std::tuple(r.spec.device.is_gpu(), kernel, r.spec.param("n"), precision);
  };
  std::map<std::tuple<bool, std::string, std::string>, const CaseResult*> float32;
  for (const CaseResult& r : results) {
    const auto [gpu, kernel, n, precision] = key_of(r);
    if (precision == "float32") float32[{gpu, kernel, n}] = &r;
  }
  std::vector<Finding> out;
  for (const CaseResult& r : results) {
    const auto [gpu, kernel, n, precision] = key_of(r);
    const auto base = float32.find({gpu, kernel, n});
    if (precision == "float32" || precision == "float64" || base == float32.end()) continue;
    std::string note =
        "float32's time over " + precision + "'s, " + kernel + " n=" + n + " on " + describe(r.spec.device);
    if (r.check.error)
      note +=
          "; error against float64 " + io::significant(r.check.error->max_abs_rel, 2) + " (max-abs / mean)";
    out.push_back(
        ratio_finding("speedup_" + precision + "_over_float32_" + kernel + (gpu ? "_gpu_n" : "_cpu_n") + n,
                      *base->second, r, note));
  }
  return out;
}

}  // namespace minigpu
