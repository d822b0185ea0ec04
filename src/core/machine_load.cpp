// What else the machine did while this process measured: /proc/stat (the node's busy and
// stolen time, each CPU's steal), getrusage (the job's own time) and /proc/self/task/*/schedstat
// (each thread's run-queue wait).
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

// /proc/stat's CPU lines ("cpu  user nice system idle iowait irq softirq steal ..." for the
// node, then "cpu3 ..." for each CPU), in seconds: read once for both the node's load and each
// CPU's steal.
struct ProcStat {
  bool read = false;  // the node's line parsed
  double busy_s = 0, steal_s = 0;
  std::map<int, double> steal_of_cpu;
};

ProcStat read_proc_stat() {
  ProcStat stat;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  if (tick <= 0) return stat;
  std::ifstream file("/proc/stat");
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4) continue;
    const bool node = line[3] == ' ';
    std::istringstream fields(line.substr(3));
    int cpu = -1;
    if (!node) fields >> cpu;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    if (!fields) continue;
    if (node) {
      stat.read = true;
      stat.busy_s = (user + nice + system + irq + softirq) / tick;
      stat.steal_s = steal / tick;
    } else {
      stat.steal_of_cpu[cpu] = steal / tick;
    }
  }
  return stat;
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
  const ProcStat stat = read_proc_stat();
  if (!stat.read) return s;
  s.node_busy_s = stat.busy_s;
  s.node_steal_s = stat.steal_s;
  s.cpus = static_cast<int>(stat.steal_of_cpu.size());
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
  // A thread may exit mid-walk: the iterator then reports through `error`, never throws.
  std::error_code error;
  namespace fs = std::filesystem;
  for (fs::directory_iterator task("/proc/self/task", error), end; !error && task != end;
       task.increment(error)) {
    std::ifstream schedstat(task->path() / "schedstat");
    double running_ns = 0, queued_ns = 0;  // the first two of its three fields
    if (schedstat >> running_ns >> queued_ns)
      s.queued_s[std::stol(task->path().filename().string())] = 1e-9 * queued_ns;
  }
  const std::map<int, double> steal = read_proc_stat().steal_of_cpu;
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
