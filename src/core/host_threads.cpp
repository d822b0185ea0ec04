// Affinity masks as CPU lists, and the share of them each rank's threads get.
#include "core/host_threads.hpp"

#include <sched.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>
#include <utility>

namespace minigpu {

std::vector<int> affinity_cpus() {
  std::vector<int> cpus;
#if defined(_OPENMP)
  // With OMP_PROC_BIND set, the OpenMP runtime pins this initial thread to its first place
  // before main runs, so its own mask is one core; the places, made from the mask the process
  // was started with, still hold all of the rank's CPUs.
  for (int place = 0; place < omp_get_num_places(); ++place) {
    std::vector<int> ids(static_cast<std::size_t>(omp_get_place_num_procs(place)));
    omp_get_place_proc_ids(place, ids.data());
    cpus.insert(cpus.end(), ids.begin(), ids.end());
  }
  if (!cpus.empty()) {
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
  }
#endif
  return calling_thread_cpus();
}

std::vector<int> calling_thread_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

int physical_cores(const std::vector<int>& cpus) {
  std::set<std::pair<int, int>> cores;
  for (const int cpu : cpus) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::ifstream package(dir + "physical_package_id"), core(dir + "core_id");
    int p = 0, c = 0;
    if (!(package >> p) || !(core >> c)) return 0;
    cores.insert({p, c});
  }
  return static_cast<int>(cores.size());
}

std::string pinned_blas_threads(int blas_threads) {
  const std::size_t mine = calling_thread_cpus().size(), rank = affinity_cpus().size();
  if (blas_threads <= 1 || mine >= rank) return "";
  return "OMP_PROC_BIND pinned the main thread to " + std::to_string(mine) + " of this rank's " +
         std::to_string(rank) + " CPUs, and the BLAS's " + std::to_string(blas_threads) +
         " threads, started from it, share that pin: unset OMP_PROC_BIND and bind the ranks instead";
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    text += (text.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) text += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return text;
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::size_t pos = 0;
  auto number = [&]() {
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && pos - start < 6) ++pos;
    if (pos == start) throw std::invalid_argument("not a CPU list: '" + text + "'");
    return std::stoi(text.substr(start, pos - start));
  };
  while (pos < text.size()) {
    const int first = number();
    int last = first;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      last = number();
    }
    if (last < first) throw std::invalid_argument("not a CPU list: '" + text + "'");
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    // A comma separates two ranges: one at the end ("1,") or doubled (",,") is not a list.
    if (pos < text.size() && (text[pos++] != ',' || pos == text.size()))
      throw std::invalid_argument("not a CPU list: '" + text + "'");
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

int ranks_sharing(const std::vector<int>& mine, const std::vector<std::vector<int>>& masks) {
  int sharing = 0;
  for (const auto& other : masks) {
    const bool overlap = std::any_of(other.begin(), other.end(), [&](int cpu) {
      return std::binary_search(mine.begin(), mine.end(), cpu);
    });
    sharing += overlap ? 1 : 0;
  }
  return std::max(1, sharing);
}

int default_host_threads(int cpus, int sharing_ranks) {
  return std::max(1, cpus / std::max(1, sharing_ranks));
}

std::string cpu_oversubscription(int cpus, int sharing_ranks, int threads) {
  if (cpus <= 0 || static_cast<long>(std::max(1, threads)) * std::max(1, sharing_ranks) <= cpus) return "";
  return std::to_string(sharing_ranks) + " rank(s) × " + std::to_string(threads) + " thread(s) on " +
         std::to_string(cpus) + " CPU(s)";
}

std::string host_thread_oversubscription(int cpus, int sharing_ranks, int threads) {
  if (threads <= 1) return "";
  const std::string crowded = cpu_oversubscription(cpus, sharing_ranks, threads);
  return crowded.empty() ? "" : crowded + ": host threads oversubscribe the cores and will compete for them";
}

}  // namespace minigpu
