#include "core/progress.hpp"

#include "core/stopwatch.hpp"

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace minigpu::progress {

struct Board::State {
  mutable std::mutex lock;
  std::uint64_t marks = 0;
  Clock::time_point last = Clock::now();
  std::vector<std::string> regions;
  std::string waiting_in, case_label;
  int repetition = 0;
  double budget_s = 0;
};

struct BoardAccess {
  static Board::State& state(Board& b) { return *b.state_; }
};

namespace {

// The board of the Recording alive now, if any: the one pointer marks need, since the code
// that marks (regions, MPI waits) holds no handle to the run that watches it.
std::atomic<Board*> recording_board{nullptr};

// Every mark is progress: the counter moves and the idle clock restarts.
template <class Change>
void mark(Change change) {
  Board* board = recording_board.load(std::memory_order_acquire);
  if (board == nullptr) return;
  Board::State& b = BoardAccess::state(*board);
  const std::lock_guard<std::mutex> hold(b.lock);
  change(b);
  ++b.marks;
  b.last = Clock::now();
}

}  // namespace

Board::Board() : state_(std::make_unique<State>()) {}
Board::~Board() = default;

Snapshot Board::snapshot() const {
  const State& b = *state_;
  const std::lock_guard<std::mutex> hold(b.lock);
  Snapshot s;
  s.marks = b.marks;
  s.idle_s = seconds_since(b.last);
  for (std::size_t i = 0; i < b.regions.size(); ++i) s.where += (i ? "/" : "") + b.regions[i];
  s.waiting_in = b.waiting_in;
  s.case_label = b.case_label;
  s.repetition = b.repetition;
  s.budget_s = b.budget_s;
  return s;
}

Recording::Recording(Board& board) {
  Board* none = nullptr;
  if (!recording_board.compare_exchange_strong(none, &board, std::memory_order_acq_rel)) {
    throw std::logic_error("progress::Recording: another board is already recording");
  }
}

Recording::~Recording() { recording_board.store(nullptr, std::memory_order_release); }

void enter(const std::string& name) {
  mark([&](Board::State& b) { b.regions.push_back(name); });
}
void leave() {
  mark([](Board::State& b) {
    if (!b.regions.empty()) b.regions.pop_back();
  });
}
void wait_begins(const char* what) {
  mark([&](Board::State& b) { b.waiting_in = what; });
}
void wait_ends() {
  mark([](Board::State& b) { b.waiting_in.clear(); });
}
void begin_case(const std::string& label, double budget_s) {
  mark([&](Board::State& b) {
    b.case_label = label;
    b.budget_s = budget_s;
    b.repetition = 0;
  });
}
void end_case() {
  mark([](Board::State& b) {
    b.case_label.clear();
    b.budget_s = 0;
    b.repetition = 0;
  });
}
void repetition(int k) {
  mark([&](Board::State& b) { b.repetition = k; });
}

}  // namespace minigpu::progress
