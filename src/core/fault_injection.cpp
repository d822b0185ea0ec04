#include "core/fault_injection.hpp"

#include "core/errors.hpp"

#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <stdexcept>

namespace minigpu {

FaultInjection FaultInjection::from_environment() {
  FaultInjection f;
  if (const char* spec = std::getenv("MINIGPU_INJECT_FAULT")) f.spec_ = spec;
  const char* delay = std::getenv("MINIGPU_INJECT_DELAY");
  if (!delay || !*delay) return f;
  const std::string text = delay;
  const auto colon = text.rfind(':');
  double seconds = -1;
  std::size_t used = 0;
  try {
    if (colon != std::string::npos) seconds = std::stod(text.substr(colon + 1), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (colon == std::string::npos || colon == 0 || used == 0 || colon + 1 + used != text.size() ||
      !std::isfinite(seconds) || seconds < 0 || seconds > 10) {
    throw InputError("MINIGPU_INJECT_DELAY='" + text +
                     "' must be EXPERIMENT:SECONDS with 0 <= SECONDS <= 10");
  }
  f.delayed_ = text.substr(0, colon);
  f.delay_s_ = seconds;
  return f;
}

void FaultInjection::at(const char* point, int rank) {
  if (spec_.empty()) return;
  const std::string here = std::to_string(rank) + ":" + point;
  const bool hang = spec_.rfind(here + ":hang", 0) == 0, stop = spec_.rfind(here + ":stop", 0) == 0;
  if (hang || stop) {
    // ":hang@K", ":stop@K": the K-th time this point is reached, so earlier cases can finish first.
    const std::string rest = spec_.substr(here.size() + 5);
    const int at = rest.size() > 1 && rest[0] == '@' ? std::atoi(rest.c_str() + 1) : 1;
    if (++hang_points_reached_ < at) return;
    if (stop) {
      std::raise(SIGSTOP);  // the whole process, watchdog thread too, until a SIGCONT
      return;
    }
    for (;;) pause();  // signals still end the process; nothing else does
  }
  if (spec_ == here + ":sigint") {
    // A terminal's Ctrl-C reaching this rank here, once: the run's stop handler takes it.
    if (++signal_points_reached_ == 1) std::raise(SIGINT);
    return;
  }
  if (spec_ != here) return;
  throw std::runtime_error("injected fault (MINIGPU_INJECT_FAULT=" + spec_ + ") at " + point + " on rank " +
                           std::to_string(rank));
}

}  // namespace minigpu
