// The handler only records the signal (all a handler may safely do); the runner polls it, and
// a StopWatcher thread acts on it at once.
#include "app/stop_signals.hpp"

#include <chrono>
#include <csignal>

namespace minigpu {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int sig) {
  if (g_stop_signal == sig && sig == SIGINT) {
    // Ctrl-C twice: the user means it. Default action, re-raised. A second SIGTERM is not that:
    // Slurm's time limit reaches a task from slurmstepd and again through the batch script and
    // srun, and its "now" is SIGKILL after KillWait, so repeats of SIGTERM are let be.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  // A different second signal is a launcher following the first through (a terminal's Ctrl-C
  // reaches the ranks and mpirun, which then sends SIGTERM): the first stays the reason.
  if (g_stop_signal == 0) g_stop_signal = sig;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int stop_signal_received() { return static_cast<int>(g_stop_signal); }

StopWatcher::StopWatcher(std::function<void(int)> on_stop) : on_stop_(std::move(on_stop)) {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!done_) {
      if (const int sig = stop_signal_received()) {
        lock.unlock();
        on_stop_(sig);
        return;
      }
      wake_.wait_for(lock, std::chrono::duration<double>(kPollS));
    }
  });
}

void StopWatcher::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace minigpu
