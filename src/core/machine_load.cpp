// /proc/stat's first line and getrusage: enough to tell a quiet node from a busy one.
#include "core/machine_load.hpp"

#include "core/host_threads.hpp"
#include "core/stopwatch.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace minigpu {
namespace {

std::string percent(double share) {
  return std::to_string(static_cast<int>(std::lround(100 * share))) + " %";
}

// Steal seconds of each CPU /proc/stat lists ("cpu3 user nice system idle iowait irq softirq steal").
std::map<int, double> steal_per_cpu() {
  std::map<int, double> steal;
  std::ifstream stat("/proc/stat");
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  std::string line;
  while (tick > 0 && std::getline(stat, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] == ' ') continue;
    std::istringstream fields(line.substr(3));
    int cpu = -1;
    double skip = 0, stolen = 0;
    fields >> cpu;
    for (int k = 0; k < 7; ++k) fields >> skip;
    fields >> stolen;
    if (fields) steal[cpu] = stolen / tick;
  }
  return steal;
}

}  // namespace

CpuSample sample_cpu() {
  CpuSample s;
  s.wall_s = seconds_since(Clock::time_point{});
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    const auto seconds = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    };
    s.own_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  }
  std::ifstream stat("/proc/stat");
  std::string line;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  while (tick > 0 && std::getline(stat, line)) {
    if (line.rfind("cpu ", 0) == 0) {
      std::istringstream fields(line.substr(4));
      double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
      fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
      if (!fields) return s;
      s.node_busy_s = (user + nice + system + irq + softirq) / tick;
      s.node_steal_s = steal / tick;
    } else if (line.rfind("cpu", 0) == 0) {
      ++s.cpus;  // cpu0, cpu1, ...
    }
  }
  return s;
}

bool MachineLoad::loaded() const { return others >= kLoadedShare || steal >= kLoadedSteal; }

std::string MachineLoad::describe() const {
  return "other processes took " + percent(others) + " of the node's CPU time over " +
         std::to_string(static_cast<int>(std::lround(seconds))) + " s, steal " + percent(steal);
}

std::optional<MachineLoad> load_between(const CpuSample& before, const CpuSample& after, double job_cpu_s) {
  const double wall = after.wall_s - before.wall_s;
  if (after.cpus <= 0 || before.cpus != after.cpus || wall < 1) return std::nullopt;
  const double capacity = wall * after.cpus;
  MachineLoad load;
  load.seconds = wall;
  load.others = std::clamp((after.node_busy_s - before.node_busy_s - job_cpu_s) / capacity, 0.0, 1.0);
  load.steal = std::clamp((after.node_steal_s - before.node_steal_s) / capacity, 0.0, 1.0);
  return load;
}

CpuWaitSample sample_cpu_wait() {
  CpuWaitSample s;
  s.wall_s = seconds_since(Clock::time_point{});
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream schedstat(task.path() / "schedstat");
    double running_ns = 0, queued_ns = 0;  // the first two of its three fields
    if (schedstat >> running_ns >> queued_ns)
      s.queued_s[std::stol(task.path().filename().string())] = 1e-9 * queued_ns;
  }
  const std::map<int, double> steal = steal_per_cpu();
  int counted = 0;
  for (int cpu : affinity_cpus()) {
    if (const auto it = steal.find(cpu); it != steal.end()) {
      s.steal_s += it->second;
      ++counted;
    }
  }
  if (counted > 0) s.steal_s /= counted;
  s.readable = !error && !s.queued_s.empty() && counted > 0;
  return s;
}

std::string CpuWait::describe() const {
  return "waited for a CPU " + percent(share()) + " of the time (run queue " + percent(queued) + ", steal " +
         percent(stolen) + ")";
}

std::optional<CpuWait> cpu_wait_between(const CpuWaitSample& before, const CpuWaitSample& after) {
  const double wall = after.wall_s - before.wall_s;
  if (!before.readable || !after.readable || wall <= 0) return std::nullopt;
  double queued = 0;  // threads started between the readings count from zero
  for (const auto& [thread, seconds] : after.queued_s) {
    const auto then = before.queued_s.find(thread);
    queued = std::max(queued, seconds - (then == before.queued_s.end() ? 0.0 : then->second));
  }
  return CpuWait{std::clamp(queued / wall, 0.0, 1.0),
                 std::clamp((after.steal_s - before.steal_s) / wall, 0.0, 1.0)};
}

}  // namespace minigpu
