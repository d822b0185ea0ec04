// No run hangs silently. Every rank runs a watchdog thread that reads what its rank is doing
// (core/progress.hpp: the profiling regions, the repetition, the collective waited in) and
// tells the other ranks over the heartbeat (comm/heartbeat.hpp). When its own rank has made no
// progress for longer than the running case's budget (or, between cases, waits on a rank gone
// silent), the job is stuck: the lowest rank still answering names the ranks that stopped
// (silent ones first, else ones stuck outside any collective), the case, repetition and phase,
// and every live rank exits kExitStalled, which ends the job under mpirun and srun alike.
// Finished cases are on disk already (rank 0 rewrites the run directory after each), so
// `--resume` finishes the rest.
#pragma once

#include "comm/communicator.hpp"
#include "comm/heartbeat.hpp"
#include "core/progress.hpp"

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace minigpu {

/// What one rank last said it was doing, and how long it has been silent.
struct RankNews {
  int rank = 0;
  std::string host;
  double silent_s = 0;
  bool heard = false;  ///< any datagram came (its own news, for this rank)
  progress::Snapshot now;
};

std::string encode_news(const progress::Snapshot& s);
/// Empty snapshot (heard false) when `text` is not a news line.
RankNews decode_news(int rank, const std::string& host, double silent_s, const std::string& text);

struct StallVerdict {
  bool stalled = false;
  int reporter = -1;          ///< the lowest rank still answering: it says why
  std::vector<int> culprits;  ///< the ranks that stopped
  std::string message;        ///< one line, for the reporter to print
};

/// Pure: whether rank `me`'s own progress is past its case's budget and, if so, who stopped.
/// A rank silent for more than `silence_s` stopped answering; when none is silent, the ranks
/// idle outside any collective for over half their budget (they stopped before the ranks that
/// wait on them) stopped progressing: a kernel or write that never returns; when every rank
/// waits in a collective, they all do (mismatched collectives). Outside a case (no budget), only
/// a rank waiting in a collective for over `silence_s` + 1 s on one heard before and silent
/// since: between cases nothing says how long a live rank may take.
StallVerdict judge_stall(int me, const std::vector<RankNews>& ranks, double silence_s,
                         const std::string& kept_in);

/// The time this rank's watchdog was itself away (its process stopped: SIGSTOP, a job suspended
/// by `scontrol suspend`; its ticks then come late), which neither this rank's idleness nor the
/// others' silence may count: a job stopped and resumed as a whole is not stuck, and a rank
/// resumed alone has heard nothing while away. Pure; fed by the watchdog's ticks.
class Absence {
 public:
  /// A tick at `now_s`, `expected_s` after the last one; `marks` and `idle_s` are this rank's
  /// progress counter and seconds since its last mark then.
  void tick(double now_s, double expected_s, std::uint64_t marks, double idle_s);
  /// `idle_s` less the time away since this rank's last mark.
  double idle_s(double idle_s) const;
  /// A rank's silence, counted only since this one was last back.
  double silent_s(double silent_s, double now_s) const;
  static constexpr double kLateS = 1.0;  ///< a tick this late: the watchdog was away

 private:
  double last_tick_s_ = -1, back_at_s_ = -1, away_since_mark_s_ = 0;
  std::uint64_t marks_ = 0;
};

class Watchdog {
 public:
  /// Collective over `comm`. `kept_in`: where rank 0 keeps the finished cases (its run
  /// directory), said in the message whichever rank reports.
  Watchdog(const comm::Communicator& comm, const std::string& kept_in);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  static constexpr double kTickS = 0.25, kBeatS = 0.5, kSilenceS = 3.0;

 private:
  void watch();

  // The board this rank's marks go to while the watchdog lives, read by its thread.
  progress::Board board_;
  progress::Recording recording_{board_};
  comm::Heartbeat heartbeat_;
  std::string kept_in_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace minigpu
