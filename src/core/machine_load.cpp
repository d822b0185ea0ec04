// /proc/stat's first line and getrusage: enough to tell a quiet node from a busy one.
#include "core/machine_load.hpp"

#include "core/stopwatch.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace minigpu {

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
  const auto percent = [](double share) {
    return std::to_string(static_cast<int>(std::lround(100 * share))) + " %";
  };
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

}  // namespace minigpu
