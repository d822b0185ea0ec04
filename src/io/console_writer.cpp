// Fixed-width rows: experiment header, then one line per case.
#include "io/console_writer.hpp"

#include "io/format.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace minigpu::io {
namespace {

std::string rate(double value) {
  return value > 0 ? formatted("%10.3f", value) : std::string(10 - 1, ' ') + "-";
}

}  // namespace

void ConsoleWriter::host_build(const Provenance& p) {
  os_ << "host: " << p.host.cpu << ", " << p.host.vector_isa << "; built " << p.build.compiler << ' '
      << p.build.flags << "; BLAS " << p.blas.library
      << (p.blas.core.empty() ? "" : " (" + p.blas.core + " kernels)")
      << (p.mpi_library.empty() ? "" : "; MPI " + p.mpi_library)
      << "; threads per rank: " << p.kokkos_host_threads << " Kokkos, " << p.blas.threads << " BLAS\n";
  if (!p.blas.warning.empty()) os_ << "warning: " << p.blas.warning << '\n';
}

void ConsoleWriter::rank_map(const std::vector<RankPlacement>& ranks) {
  os_ << "ranks:\n";
  for (const auto& r : ranks) {
    os_ << "  rank " << r.rank << " on " << r.host << " (local rank " << r.local_rank << "): " << r.device
        << (r.device_id >= 0 ? ", device id " + std::to_string(r.device_id) + " (" + r.binding + ")"
                             : std::string(", no GPU"))
        << "; cores " << r.cores << ", " << r.threads << " thread" << (r.threads == 1 ? "" : "s") << '\n';
  }
}

void ConsoleWriter::ceilings(const CeilingTable& table) {
  os_ << "ceilings (" << table.source << "):\n";
  for (const auto& c : table.ceilings) {
    char row[512];
    std::snprintf(row, sizeof(row), "  %-18s %10.1f %-8s %s: %s\n", c.name.c_str(), c.value, c.unit.c_str(),
                  c.label.c_str(), c.how.c_str());
    os_ << row;
  }
  if (!table.doubt.empty()) os_ << "warning: these ceilings are doubtful: " << table.doubt << '\n';
}

void ConsoleWriter::warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) os_ << "warning: " << w << '\n';
}

void ConsoleWriter::notes(const std::vector<std::string>& notes) {
  for (const auto& n : notes) os_ << "note: " << n << '\n';
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
  // Two significant digits below 10 %: thousands of repetitions give a narrow interval, which
  // "0.0%" would show as none.
  const double reach = r.seconds.median_ci_percent();
  const std::string spread = r.repetitions <= 1 ? "    n/a"
                             : reach < 10       ? formatted("%6.2g%%", reach)
                                                : formatted("%6.1f%%", reach);
  // A share above its ceiling is past a bound the row cannot pass: marked "!", its reason after.
  const bool above = r.ceiling && r.ceiling->percent > 100;
  const std::string share = !r.ceiling ? "      -"
                            : above    ? formatted("%5.1f%%!", r.ceiling->percent)
                                       : formatted("%6.1f%%", r.ceiling->percent);
  // A ceiling counted k times (k ranks each on a device of its own; both directions) is named so:
  // a p = 2 row of 301.6 GFLOP/s read "86.6% host_sgemm" beside a host_sgemm of 174 GFLOP/s.
  const std::string of = r.ceiling ? counted_times(r.ceiling->scale, r.ceiling->name) : "";
  std::snprintf(row, sizeof(row), "%s %-42s %-18s %-8s %12.4e %s %12.4e %s %s %s %-15s %s",
                r.reliable ? " " : "!", r.spec.label.c_str(), describe(r.spec.device).c_str(),
                to_string(r.spec.dtype).c_str(), r.seconds.median, spread.c_str(), r.seconds.max,
                rate(r.gbps).c_str(), rate(r.gflops).c_str(), share.c_str(), of.c_str(),
                r.check.passed ? "PASS" : "FAIL");
  os_ << row;
  const bool resumed = r.resumed();
  if (resumed) os_ << " (resumed)";
  if (!r.check.passed) os_ << " (" << r.check.detail << ')';
  if (!r.reliable) os_ << "  [" << r.unreliable_because << ']';
  if (above) os_ << "  (! above its ceiling: " << r.ceiling->above_because << ')';
  os_ << '\n';
  // A resumed row took no time here: the time to go is extrapolated from the cases measured in
  // this run alone, and left out until one has been.
  if (resumed) ++resumed_rows_;
  const int measured_here = index - resumed_rows_;
  const double eta = measured_here > 0 ? elapsed_s / measured_here * (total - index) : 0;
  progress_ = "case " + std::to_string(index) + " of " + std::to_string(total) + ", " +
              formatted("%.1f", elapsed_s) + " s elapsed" +
              (index < total && measured_here > 0 ? ", about " + formatted("%.0f", eta) + " s to go" : "");
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
        << (f.value ? significant(*f.value, 4) + (f.unit.empty() ? "" : " " + f.unit) : std::string("n/a"));
    if (!f.note.empty()) os_ << "  (" << f.note << ')';
    if (!f.reliable) os_ << "  [unreliable: " << f.unreliable_because << ']';
    os_ << '\n';
  }
}

void ConsoleWriter::summary(const std::vector<CaseResult>& results, const std::string& results_dir,
                            int planned, const std::string& interrupted_by) {
  erase_status();
  if (!live_status_ && !progress_.empty()) os_ << "  (" << progress_ << ")\n";
  int failed = 0;
  for (const auto& r : results) failed += r.check.passed ? 0 : 1;
  const std::string counts = std::to_string(results.size() - static_cast<std::size_t>(failed)) +
                             " verified, " + std::to_string(failed) + " failed";
  os_ << '\n';
  if (interrupted_by.empty()) {
    os_ << results.size() << " cases, " << counts << '\n';
  } else {
    os_ << "interrupted by " << interrupted_by << ": " << results.size() << " of " << planned
        << " cases finished, " << counts << '\n';
  }
  if (!results_dir.empty()) os_ << "results: " << results_dir << '\n';
}

}  // namespace minigpu::io
