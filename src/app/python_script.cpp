#include "app/python_script.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <thread>

extern char** environ;

namespace minigpu {
namespace {

using Clock = std::chrono::steady_clock;

// Waits up to `for_s` seconds (forever when <= 0) for `pid` to end, or until `stopped()`: true
// once it has ended (its wait status in `status`) or cannot be waited for (`failed` set), false
// while it still runs.
bool wait_for(pid_t pid, double for_s, const std::function<bool()>& stopped, int& status, bool& failed) {
  const auto until = Clock::now() + std::chrono::duration<double>(for_s);
  const bool polled = for_s > 0 || stopped;
  for (;;) {
    const pid_t done = waitpid(pid, &status, polled ? WNOHANG : 0);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) {
      failed = true;
      return true;
    }
    if (done == 0) {
      if ((for_s > 0 && Clock::now() >= until) || (stopped && stopped())) return false;
      // A plot takes seconds; 20 ms of polling costs it nothing and keeps no signal handler.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

}  // namespace

int run_python_script(const std::filesystem::path& script, const std::vector<std::string>& args,
                      double timeout_s, const std::function<bool()>& stopped) {
  std::vector<std::string> words = {"python3", script.string()};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, "python3", nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  bool failed = false;
  if (!wait_for(pid, timeout_s, stopped, status, failed)) {
    const bool was_stopped = stopped && stopped();
    // Asked to end first, as Ctrl-C would; then killed. A child stuck in the kernel (an NFS
    // mount gone) may outlive even SIGKILL for a while: it is not waited for past 1 s more.
    kill(pid, SIGTERM);
    if (!wait_for(pid, 2.0, {}, status, failed)) {
      kill(pid, SIGKILL);
      wait_for(pid, 1.0, {}, status, failed);
    }
    return was_stopped ? kScriptStopped : kScriptTimedOut;
  }
  if (failed) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace minigpu
