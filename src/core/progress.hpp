// What this rank is doing, for the run's watchdog: the profiling regions it is inside
// (minigpu/<experiment>/<case>/run/comm ...), the repetition, the collective it waits in, and
// a counter every mark moves. The board is the watchdog's (engine/watchdog.hpp), which reads it
// from its own thread while the main thread is stuck in a collective, a device fence or a
// write. Marks come from code that holds no handle to it (profiling regions, every MPI wait in
// comm/), so while a watchdog records, they go to its board; with none recording (unit tests,
// `minigpu ceilings`) they go nowhere and cost one atomic load. A mark costs a lock and a
// string, never a fence.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace minigpu::progress {

struct Snapshot {
  std::uint64_t marks = 0;  ///< moves on every mark: progress
  double idle_s = 0;        ///< seconds since the last mark
  std::string where;        ///< "minigpu/matmul/vendor n=64/run", regions joined by '/'
  std::string waiting_in;   ///< the collective waited in, "" when not waiting on others
  std::string case_label;   ///< "" outside a case
  int repetition = 0;
  double budget_s = 0;
};

/// One rank's record of what it is doing: marks land here while a Recording of it lives.
class Board {
 public:
  Board();
  ~Board();
  Board(const Board&) = delete;
  Board& operator=(const Board&) = delete;
  /// Safe from any thread.
  Snapshot snapshot() const;
  struct State;  ///< defined in progress.cpp, where marks change it

 private:
  friend struct BoardAccess;
  std::unique_ptr<State> state_;
};

/// While it lives, this process's marks go to `board` (one recording at a time: a second one
/// throws std::logic_error).
class Recording {
 public:
  explicit Recording(Board& board);
  ~Recording();
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;
};

/// Enters a region (ProfileRegion does, with the same name); leave() ends the innermost one.
void enter(const std::string& name);
void leave();
/// A collective or point-to-point wait entered / left: where the rank waits on others.
void wait_begins(const char* what);
void wait_ends();
/// The case now running, as the console names it, and how long it may go without progress
/// (0: unwatched); end_case() clears both.
void begin_case(const std::string& label, double budget_s);
void end_case();
/// Repetition `k` (1-based) of the case starts; 0 for warm-ups.
void repetition(int k);

/// Scope of a watched case: begin_case now, end_case however the scope ends.
class Case {
 public:
  Case(const std::string& label, double budget_s) { begin_case(label, budget_s); }
  ~Case() { end_case(); }
  Case(const Case&) = delete;
  Case& operator=(const Case&) = delete;
};

/// Scope of a wait on other ranks.
class Wait {
 public:
  explicit Wait(const char* what) { wait_begins(what); }
  ~Wait() { wait_ends(); }
  Wait(const Wait&) = delete;
  Wait& operator=(const Wait&) = delete;
};

}  // namespace minigpu::progress
