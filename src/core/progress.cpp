#include "core/progress.hpp"

#include "core/stopwatch.hpp"

#include <mutex>
#include <vector>

namespace minigpu::progress {
namespace {

struct Board {
  std::mutex lock;
  std::uint64_t marks = 0;
  Clock::time_point last = Clock::now();
  std::vector<std::string> regions;
  std::string waiting_in, case_label;
  int repetition = 0;
  double budget_s = 0;
};

Board& board() {
  static Board b;
  return b;
}

// Every mark is progress: the counter moves and the idle clock restarts.
template <class Change>
void mark(Change change) {
  Board& b = board();
  const std::lock_guard<std::mutex> hold(b.lock);
  change(b);
  ++b.marks;
  b.last = Clock::now();
}

}  // namespace

void enter(const std::string& name) {
  mark([&](Board& b) { b.regions.push_back(name); });
}
void leave() {
  mark([](Board& b) {
    if (!b.regions.empty()) b.regions.pop_back();
  });
}
void wait_begins(const char* what) {
  mark([&](Board& b) { b.waiting_in = what; });
}
void wait_ends() {
  mark([](Board& b) { b.waiting_in.clear(); });
}
void begin_case(const std::string& label, double budget_s) {
  mark([&](Board& b) {
    b.case_label = label;
    b.budget_s = budget_s;
    b.repetition = 0;
  });
}
void end_case() {
  mark([](Board& b) {
    b.case_label.clear();
    b.budget_s = 0;
    b.repetition = 0;
  });
}
void repetition(int k) {
  mark([&](Board& b) { b.repetition = k; });
}

Snapshot snapshot() {
  Board& b = board();
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

}  // namespace minigpu::progress
