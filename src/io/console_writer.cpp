// Fixed-width rows: experiment header, then one line per case.
#include "io/console_writer.hpp"

#include "io/format.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace minigpu::io {
namespace {

std::string fmt(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

std::string rate(double value) { return value > 0 ? fmt("%10.3f", value) : std::string(10 - 1, ' ') + "-"; }

}  // namespace

void ConsoleWriter::host_build(const nlohmann::json& p) {
  const auto& blas = p["blas"];
  const std::string core = blas["core"].get<std::string>();
  os_ << "host: " << p["host"]["cpu"].get<std::string>() << ", " << p["host"]["vector_isa"].get<std::string>()
      << "; built " << p["build"]["compiler"].get<std::string>() << ' '
      << p["build"]["flags"].get<std::string>() << "; BLAS " << blas["library"].get<std::string>()
      << (core.empty() ? "" : " (" + core + " kernels)")
      << "; threads per rank: " << p["threads"]["kokkos_host"].get<int>() << " Kokkos, "
      << p["threads"]["blas"].get<int>() << " BLAS\n";
  if (blas.contains("warning")) os_ << "warning: " << blas["warning"].get<std::string>() << '\n';
}

void ConsoleWriter::rank_map(const nlohmann::json& ranks) {
  os_ << "ranks:\n";
  for (const auto& r : ranks) {
    const int id = r["device_id"].get<int>();
    os_ << "  rank " << r["rank"].get<int>() << " on " << r["host"].get<std::string>() << " (local rank "
        << r["local_rank"].get<int>() << "): " << r["device"].get<std::string>()
        << (id >= 0 ? ", device id " + std::to_string(id) : std::string(", no GPU"));
    // Records written before ranks named their cores have neither field.
    if (r.contains("cores")) {
      const int threads = r["threads"].get<int>();
      os_ << "; cores " << r["cores"].get<std::string>() << ", " << threads << " thread" << (threads == 1 ? "" : "s");
    }
    os_ << '\n';
  }
}

void ConsoleWriter::ceilings(const nlohmann::json& ceilings, const std::string& source) {
  os_ << "ceilings (" << source << "):\n";
  for (const auto& c : ceilings) {
    char row[512];
    std::snprintf(row, sizeof(row), "  %-18s %10.1f %-8s %s: %s\n", c["name"].get<std::string>().c_str(),
                  c["value"].get<double>(), c["unit"].get<std::string>().c_str(),
                  c["label"].get<std::string>().c_str(), c["how"].get<std::string>().c_str());
    os_ << row;
  }
}

void ConsoleWriter::warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) os_ << "warning: " << w << '\n';
}

void ConsoleWriter::plan(const nlohmann::json& resolved_input,
                         const std::vector<std::pair<std::string, std::vector<CaseSpec>>>& experiments,
                         int ranks, const std::string& estimate, const std::vector<std::string>& warnings) {
  os_ << "resolved input (defaults filled in, --set applied):\n" << resolved_input.dump(2) << "\n\n";
  std::size_t total = 0;
  std::uint64_t largest = 0;
  for (const auto& [name, cases] : experiments) {
    os_ << "== " << name << ": " << cases.size() << " case" << (cases.size() == 1 ? "" : "s") << '\n';
    for (const auto& c : cases) {
      char row[256];
      std::snprintf(row, sizeof(row), "  %-42s %-18s %-8s %12s per rank\n", c.label.c_str(),
                    describe(c.device).c_str(), to_string(c.dtype).c_str(),
                    human_bytes(c.device_bytes).c_str());
      os_ << row;
      largest = std::max(largest, c.device_bytes);
    }
    total += cases.size();
  }
  os_ << '\n'
      << total << " cases on " << ranks << " rank" << (ranks == 1 ? "" : "s") << ", at most "
      << human_bytes(largest) << " per rank at once; input is valid; nothing was run (--dry-run)\n";
  if (!estimate.empty()) os_ << estimate << '\n';
  this->warnings(warnings);
}

void ConsoleWriter::erase_status() {
  if (status_shown_) os_ << "\r\033[K";
  status_shown_ = false;
}

void ConsoleWriter::case_finished(const CaseResult& r, int index, int total, double elapsed_s) {
  erase_status();
  if (r.experiment != current_experiment_) {
    // Into a file, progress is a line between two experiments' tables.
    if (!live_status_ && !progress_.empty()) os_ << "  (" << progress_ << ")\n";
    current_experiment_ = r.experiment;
    os_ << "\n== " << r.experiment << '\n';
    char header[256];
    std::snprintf(header, sizeof(header), "  %-42s %-18s %-8s %12s %8s %12s %10s %10s %7s %-15s %s\n", "case",
                  "device", "dtype", "median s", "±%", "max s", "GB/s", "GFLOP/s", "%ceil", "of", "check");
    os_ << header;
  }
  char row[512];
  // "±%": the median's 95 % interval, as far as it reaches from the median; one repetition has none.
  const std::string spread = r.repetitions > 1 ? fmt("%6.1f%%", r.seconds.median_ci_percent()) : "    n/a";
  const std::string share = r.ceiling ? fmt("%6.1f%%", r.ceiling->percent) : "      -";
  std::snprintf(row, sizeof(row), "%s %-42s %-18s %-8s %12.4e %s %12.4e %s %s %s %-15s %s",
                r.reliable ? " " : "!", r.spec.label.c_str(), describe(r.spec.device).c_str(),
                to_string(r.spec.dtype).c_str(), r.seconds.median, spread.c_str(), r.seconds.max,
                rate(r.gbps).c_str(), rate(r.gflops).c_str(), share.c_str(),
                r.ceiling ? r.ceiling->name.c_str() : "", r.check.passed ? "PASS" : "FAIL");
  os_ << row;
  if (r.check.detail.find("[resumed]") != std::string::npos) os_ << " (resumed)";
  if (!r.check.passed) os_ << " (" << r.check.detail << ')';
  if (!r.reliable) os_ << "  [" << r.unreliable_because << ']';
  if (r.ceiling && !r.ceiling->above_because.empty()) os_ << "  (" << r.ceiling->above_because << ')';
  os_ << '\n';
  const double eta = index > 0 ? elapsed_s / index * (total - index) : 0;
  progress_ = "case " + std::to_string(index) + " of " + std::to_string(total) + ", " +
              fmt("%.1f", elapsed_s) + " s elapsed" +
              (index < total ? ", about " + fmt("%.0f", eta) + " s to go" : "");
  if (live_status_ && index < total) {
    os_ << "  [" << progress_ << "]";
    status_shown_ = true;
  }
  os_.flush();
}

void ConsoleWriter::findings(const std::vector<Finding>& findings) {
  erase_status();
  if (findings.empty()) return;
  os_ << "\n== findings   (! = unreliable: the reason follows)\n";
  for (const auto& f : findings) {
    os_ << (f.reliable ? "  " : "! ") << f.experiment << '.' << f.name << " = "
        << (f.value ? fmt("%.4g", *f.value) + (f.unit.empty() ? "" : " " + f.unit) : std::string("n/a"));
    if (!f.note.empty()) os_ << "  (" << f.note << ')';
    if (!f.reliable) os_ << "  [unreliable: " << f.unreliable_because << ']';
    os_ << '\n';
  }
}

void ConsoleWriter::summary(const std::vector<CaseResult>& results, const std::string& results_dir) {
  erase_status();
  if (!live_status_ && !progress_.empty()) os_ << "  (" << progress_ << ")\n";
  int failed = 0;
  for (const auto& r : results) failed += r.check.passed ? 0 : 1;
  os_ << '\n'
      << results.size() << " cases, " << results.size() - failed << " verified, " << failed << " failed\n";
  if (!results_dir.empty()) os_ << "results: " << results_dir << '\n';
}

}  // namespace minigpu::io
