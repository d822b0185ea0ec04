// Host threads per rank. A rank computes on the CPUs of its affinity mask (what `mpirun
// --map-by slot:PE=T --bind-to core`, `srun --cpus-per-task=T` or `taskset` gave it); the ranks of
// a node whose masks overlap share those CPUs, so by default each takes its share. Kokkos's host
// space and the host BLAS get the same count.
#pragma once

#include <string>
#include <vector>

namespace minigpu {

/// The logical CPUs this process may run on (its affinity mask), ascending.
std::vector<int> affinity_cpus();

/// The CPUs the calling thread may run on (under OMP_PROC_BIND, fewer than the process's).
std::vector<int> calling_thread_cpus();

/// "" or why `blas_threads` BLAS threads share fewer CPUs than the rank has: threads a pinned
/// main thread starts (OpenBLAS's pthreads) inherit its pin.
std::string pinned_blas_threads(int blas_threads);

/// How many physical cores `cpus` span (distinct package and core ids in sysfs): fewer than
/// the CPUs where some are SMT siblings of one core. 0 where the topology cannot be read.
int physical_cores(const std::vector<int>& cpus);

/// "0-3,8,10-11": the list form of `taskset -c` and /proc's Cpus_allowed_list.
std::string cpu_list_text(const std::vector<int>& cpus);

/// The CPUs of a list written by cpu_list_text; throws std::invalid_argument on other text.
std::vector<int> parse_cpu_list(const std::string& text);

/// How many of `masks` (one per rank of a node, this rank's included) share a CPU with `mine`.
int ranks_sharing(const std::vector<int>& mine, const std::vector<std::vector<int>>& masks);

/// Threads per rank when the user chose none: its share of the CPUs it shares, at least one.
int default_host_threads(int cpus, int sharing_ranks);

/// "" or "R rank(s) × T thread(s) on C CPU(s)" when `sharing_ranks` ranks of `threads` threads
/// each share more threads than the `cpus` of their affinity masks: every timing they take is
/// suspect (the runner flags the figures). `cpus` 0 (unknown) is never flagged.
std::string cpu_oversubscription(int cpus, int sharing_ranks, int threads);

/// The warning for threads the user asked for beyond the rank's share (cpu_oversubscription
/// with more than one thread per rank): more ranks than cores, one thread each, is a layout
/// the user chose, which the runner still flags.
std::string host_thread_oversubscription(int cpus, int sharing_ranks, int threads);

}  // namespace minigpu
