// SIGINT and SIGTERM (Ctrl-C, what Slurm sends at the time limit, and what mpirun passes on)
// ask the run to stop at the next repetition or case boundary instead of killing it: finished
// cases are kept and the run directory says it was interrupted. A second signal of the same
// kind ends the process at once.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace minigpu {

/// Installs the handlers; call once, before the first case.
void install_stop_handlers();
/// The signal that asked this process to stop, or 0.
int stop_signal_received();

/// Calls `on_stop(signal)` once, from a thread of its own, within kPollS of the first stop
/// signal: before the runner reaches its next boundary, which a long repetition may hold back
/// past a launcher's grace period (Open MPI's mpirun kills its ranks 1 s after passing a
/// signal on). Never called once stop() returned.
class StopWatcher {
 public:
  static constexpr double kPollS = 0.02;
  explicit StopWatcher(std::function<void(int)> on_stop);
  StopWatcher(const StopWatcher&) = delete;
  StopWatcher& operator=(const StopWatcher&) = delete;
  ~StopWatcher() { stop(); }
  void stop();

 private:
  std::function<void(int)> on_stop_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace minigpu
