// The handler only records the signal (all a handler may safely do); the runner polls it.
#include "app/stop_signals.hpp"

#include <csignal>

namespace minigpu {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int sig) {
  if (g_stop_signal != 0) {
    // Asked twice: the user means it. Default action, re-raised.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_stop_signal = sig;
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

}  // namespace minigpu
