// What else the machine did while this process measured: the node's busy and stolen CPU time
// (/proc/stat) against the job's own CPU time (getrusage), so that a figure measured on a
// loaded machine says so instead of passing for what the machine does.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace minigpu {

/// One reading: wall clock, the node's busy and stolen CPU seconds over all its CPUs since boot
/// (busy: user, nice, system, irq, softirq), and this process's own CPU seconds (all threads).
struct CpuSample {
  double wall_s = 0;
  double node_busy_s = 0, node_steal_s = 0;
  double own_s = 0;
  int cpus = 0;  ///< CPUs /proc/stat counts; 0 when it could not be read
};
CpuSample sample_cpu();

/// Shares of the node's CPU time between two readings.
struct MachineLoad {
  double others = 0;  ///< busy time not the job's own (`job_cpu_s`), over the node's CPU time
  double steal = 0;   ///< time the hypervisor gave to other guests
  double seconds = 0;
  /// Other processes took at least kLoadedShare of the node, or the hypervisor kLoadedSteal.
  bool loaded() const;
  /// "other processes took 2 % of the node's CPU time over 41 s, steal 0 %".
  std::string describe() const;
};
inline constexpr double kLoadedShare = 0.10, kLoadedSteal = 0.05;

/// The load between `before` and `after` on one node, `job_cpu_s` being the CPU seconds the
/// job's own processes on that node used meanwhile; nullopt when /proc/stat could not be read
/// or the interval is under a second (its 10 ms ticks then say nothing).
std::optional<MachineLoad> load_between(const CpuSample& before, const CpuSample& after, double job_cpu_s);

/// What kept this process from running, read at one moment: each of its threads' time spent
/// ready on a run queue (/proc/self/task/*/schedstat, nanoseconds) and the time the hypervisor
/// stole from the CPUs of its affinity mask, averaged over them (/proc/stat, 10 ms ticks).
struct CpuWaitSample {
  double wall_s = 0;
  std::map<long, double> queued_s;  ///< thread id -> seconds spent waiting to run
  double steal_s = 0;
  bool readable = false;  ///< false where /proc could not say (then no share is given)
};
CpuWaitSample sample_cpu_wait();

/// Shares of the wall time between two readings that this process could not run: `queued`, the
/// most any one of its threads waited on a run queue (a rank's parallel work waits for its
/// slowest thread); `stolen`, its CPUs' steal. A straggler that waited says why it straggled.
struct CpuWait {
  double queued = 0, stolen = 0;
  double share() const { return queued + stolen; }
  /// "waited for a CPU 38 % of the time (run queue 30 %, steal 8 %)".
  std::string describe() const;
};
std::optional<CpuWait> cpu_wait_between(const CpuWaitSample& before, const CpuWaitSample& after);

}  // namespace minigpu
