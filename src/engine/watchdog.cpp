#include "engine/watchdog.hpp"

#include "comm/collectives.hpp"
#include "core/errors.hpp"
#include "core/stopwatch.hpp"
#include "io/format.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace minigpu {
namespace {

constexpr char kSep = '\x1f';  // never in a label or region name the console would print

std::string seconds(double s) { return io::significant(s, s < 10 ? 2 : 3) + " s"; }

// "matmul_scaling summa p=2 n=1024 cpu float64, repetition 7, in minigpu/…/run/comm"
std::string place(const progress::Snapshot& s) {
  std::string text = s.case_label.empty() ? "outside any case" : s.case_label;
  if (s.repetition > 0) text += ", repetition " + std::to_string(s.repetition);
  if (!s.where.empty()) text += ", in " + s.where;
  if (!s.waiting_in.empty()) text += " (waiting in " + s.waiting_in + ")";
  return text;
}

std::string who(const RankNews& n) {
  return "rank " + std::to_string(n.rank) + (n.host.empty() ? "" : " (" + n.host + ")");
}

}  // namespace

std::string encode_news(const progress::Snapshot& s) {
  std::ostringstream out;
  out << s.marks << kSep << s.idle_s << kSep << s.budget_s << kSep << s.repetition << kSep << s.waiting_in
      << kSep << s.case_label << kSep << s.where;
  return out.str();
}

RankNews decode_news(int rank, const std::string& host, double silent_s, const std::string& text) {
  RankNews n{rank, host, silent_s, false, {}};
  std::vector<std::string> f;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, kSep)) f.push_back(part);
  if (f.size() < 6) return n;
  try {
    n.now.marks = std::stoull(f[0]);
    n.now.idle_s = std::stod(f[1]);
    n.now.budget_s = std::stod(f[2]);
    n.now.repetition = std::stoi(f[3]);
  } catch (const std::exception&) {
    return n;
  }
  n.now.waiting_in = f[4];
  n.now.case_label = f[5];
  n.now.where = f.size() > 6 ? f[6] : "";
  n.heard = true;
  return n;
}

StallVerdict judge_stall(int me, const std::vector<RankNews>& ranks, double silence_s,
                         const std::string& kept_in) {
  StallVerdict v;
  const progress::Snapshot& mine = ranks.at(me).now;
  // Never before a stopped rank can have fallen silent: with a budget shorter than the silence
  // threshold, a stopped rank would be taken for one waiting like the others.
  if (mine.idle_s <= std::max(mine.budget_s, silence_s + 1)) return v;
  // Outside a case nothing bounds how long a phase may take, but a rank waiting on the others
  // while one of them is silent waits for ever: rank 0 stopped in its write of a case, the
  // others in the next case's stop agreement (CI, 2026-12-07: 298 s, until the test's timeout).
  // Only a rank heard before counts: one never heard may sit behind a network that drops UDP.
  const bool unwatched = mine.budget_s <= 0;
  const bool any_silent = std::any_of(ranks.begin(), ranks.end(), [&](const RankNews& n) {
    return n.rank != me && n.heard && n.silent_s > silence_s;
  });
  if (unwatched && (mine.waiting_in.empty() || !any_silent)) return v;
  v.stalled = true;
  std::vector<int> silent, stuck;
  for (const auto& n : ranks) {
    if (n.rank != me && n.silent_s > silence_s) {
      silent.push_back(n.rank);
    } else if (v.reporter < 0) {
      v.reporter = n.rank;
    }
    // Its idle time now (its news is up to a beat old), against half the budget: it stopped
    // first, so it may be a little short of the full budget when this rank's runs out.
    const bool past = n.now.budget_s > 0 && n.now.idle_s + n.silent_s > 0.5 * n.now.budget_s;
    if ((n.rank == me || n.silent_s <= silence_s) && past && n.now.waiting_in.empty())
      stuck.push_back(n.rank);
  }
  std::string what;
  if (!silent.empty()) {
    v.culprits = silent;
    what = "stopped answering";
  } else if (!stuck.empty()) {
    v.culprits = stuck;
    what = "stopped progressing";
  } else {
    for (const auto& n : ranks) v.culprits.push_back(n.rank);
    what = "waits on another rank";
  }
  std::string text =
      "no progress for " + seconds(mine.idle_s) +
      (unwatched ? ", waiting on the others outside any case: "
                 : ", past the " + seconds(mine.budget_s) + " budget (run.case_timeout): ");
  for (std::size_t i = 0; i < v.culprits.size(); ++i) {
    const RankNews& n = ranks.at(v.culprits[i]);
    text += (i ? "; " : "") + who(n) + " " + what;
    // A silent rank's news is its last datagram: up to a beat older than its stop.
    const bool quiet = std::find(silent.begin(), silent.end(), n.rank) != silent.end();
    if (quiet) text += " (silent for " + seconds(n.silent_s) + (n.heard ? "" : ", never heard") + ")";
    if (n.heard || n.rank == me) text += (quiet ? " last heard in " : " in ") + place(n.now);
  }
  std::string waiting;
  for (const auto& n : ranks) {
    const bool culprit = std::find(v.culprits.begin(), v.culprits.end(), n.rank) != v.culprits.end();
    if (!culprit && !n.now.waiting_in.empty())
      waiting += (waiting.empty() ? "" : ", ") + std::to_string(n.rank) + " in " + n.now.waiting_in;
  }
  if (!waiting.empty()) text += "; waiting for them: rank " + waiting;
  text += ". The job ends (exit " + std::to_string(kExitStalled) + ")";
  if (!kept_in.empty())
    text += "; finished cases are kept in " + kept_in + " (--resume it to finish the run)";
  v.message = text;
  return v;
}

void Absence::tick(double now_s, double expected_s, std::uint64_t marks, double idle_s) {
  if (marks != marks_) away_since_mark_s_ = 0;
  marks_ = marks;
  const double away_s = last_tick_s_ < 0 ? 0 : now_s - last_tick_s_ - expected_s;
  last_tick_s_ = now_s;
  if (away_s <= kLateS) return;
  back_at_s_ = now_s;
  // A mark made since the process came back is younger than the time away: none of it counts.
  if (idle_s >= away_s) away_since_mark_s_ += away_s;
}

double Absence::idle_s(double idle_s) const { return std::max(0.0, idle_s - away_since_mark_s_); }

double Absence::silent_s(double silent_s, double now_s) const {
  return back_at_s_ < 0 ? silent_s : std::min(silent_s, now_s - back_at_s_);
}

Watchdog::Watchdog(const comm::Communicator& comm, const std::string& kept_in)
    : heartbeat_(comm), kept_in_(comm::allgather_strings(kept_in, comm).at(0)) {
  thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void Watchdog::watch() {
  const auto start = Clock::now();
  auto last_beat = start - std::chrono::seconds(1);
  Absence absence;
  while (!stopping_) {
    std::this_thread::sleep_for(std::chrono::duration<double>(kTickS));
    progress::Snapshot mine = board_.snapshot();
    const double now = seconds_since(start);
    absence.tick(now, kTickS, mine.marks, mine.idle_s);
    mine.idle_s = absence.idle_s(mine.idle_s);
    if (seconds_since(last_beat) >= kBeatS) {
      heartbeat_.send(encode_news(mine));
      last_beat = Clock::now();
    }
    heartbeat_.receive();
    std::vector<RankNews> ranks;
    const auto peers = heartbeat_.peers();
    for (std::size_t r = 0; r < peers.size(); ++r) {
      const int rank = static_cast<int>(r);
      if (rank == heartbeat_.rank()) {
        ranks.push_back({rank, peers[r].host, 0, true, mine});
      } else {
        ranks.push_back(
            decode_news(rank, peers[r].host, absence.silent_s(peers[r].silent_s, now), peers[r].news));
      }
    }
    const StallVerdict v = judge_stall(heartbeat_.rank(), ranks, kSilenceS, kept_in_);
    if (!v.stalled) continue;
    // The reporter says why; the others give it a moment, so the launcher that tears the job
    // down once a rank exits does not take the reporter before its line is out. One still here
    // after that says it too: the reporter may be a rank still progressing, that never judges.
    if (v.reporter != heartbeat_.rank()) std::this_thread::sleep_for(std::chrono::seconds(2));
    std::cout.flush();
    std::fflush(stdout);
    const std::string line =
        "minigpu: rank " + std::to_string(heartbeat_.rank()) + ": error: " + v.message + "\n";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    ::_exit(kExitStalled);
  }
}

}  // namespace minigpu
