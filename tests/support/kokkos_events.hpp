// Counts what code does through Kokkos's own tool hooks, an observer outside the code under
// test: kernel launches, deep copies, fences, allocations, and launches or regions of one name; or
// the tree of profiling regions with the kernels launched inside it.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace minigpu::testing {

struct KokkosEventCounts {
  long fors = 0, reduces = 0, copies = 0, allocations = 0, named = 0, fences = 0;
};

/// Installs the hooks while it lives (one at a time); counts start at zero.
class KokkosEventCounter {
 public:
  explicit KokkosEventCounter(const char* name = "") {
    name_ = name;
    counts_ = KokkosEventCounts{};
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_begin_parallel_for_callback(&KokkosEventCounter::parallel_for);
    tools::set_begin_parallel_reduce_callback(&KokkosEventCounter::parallel_reduce);
    tools::set_begin_deep_copy_callback(&KokkosEventCounter::deep_copy);
    tools::set_allocate_data_callback(&KokkosEventCounter::allocate);
    tools::set_push_region_callback(&KokkosEventCounter::region);
    tools::set_begin_fence_callback(&KokkosEventCounter::fence);
  }
  ~KokkosEventCounter() {
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_begin_parallel_for_callback(nullptr);
    tools::set_begin_parallel_reduce_callback(nullptr);
    tools::set_begin_deep_copy_callback(nullptr);
    tools::set_allocate_data_callback(nullptr);
    tools::set_push_region_callback(nullptr);
    tools::set_begin_fence_callback(nullptr);
  }
  KokkosEventCounter(const KokkosEventCounter&) = delete;
  KokkosEventCounter& operator=(const KokkosEventCounter&) = delete;

  static long parallel_fors() { return counts_.fors; }
  static long parallel_reduces() { return counts_.reduces; }
  static long deep_copies() { return counts_.copies; }
  static long allocations() { return counts_.allocations; }
  /// Fences the tools were told of (Kokkos 4: one per backend for a global Kokkos::fence()).
  static long fences() { return counts_.fences; }
  /// Launches and regions named like the constructor's `name`.
  static long named() { return counts_.named; }

 private:
  static void parallel_for(const char* name, std::uint32_t, std::uint64_t*) {
    ++counts_.fors;
    region(name);
  }
  static void parallel_reduce(const char* name, std::uint32_t, std::uint64_t*) {
    ++counts_.reduces;
    region(name);
  }
  static void deep_copy(Kokkos_Profiling_SpaceHandle, const char*, const void*, Kokkos_Profiling_SpaceHandle,
                        const char*, const void*, std::uint64_t) {
    ++counts_.copies;
  }
  static void allocate(Kokkos_Profiling_SpaceHandle, const char*, const void*, std::uint64_t) {
    ++counts_.allocations;
  }
  static void fence(const char*, std::uint32_t, std::uint64_t*) { ++counts_.fences; }
  static void region(const char* name) {
    if (std::strcmp(name, name_) == 0) ++counts_.named;
  }
  static inline const char* name_ = "";
  static inline KokkosEventCounts counts_{};
};

/// A kernel launch: its label and the regions open around it, outermost first.
struct TracedKernel {
  std::string label;
  std::vector<std::string> regions;
};

struct RegionTraceState {
  std::vector<std::string> stack;
  std::vector<std::vector<std::string>> pushed;
  std::vector<TracedKernel> kernels;
  long unmatched_pops = 0;
};

/// Records, while it lives (one at a time, never beside a KokkosEventCounter), every region
/// pushed as its path of open regions (outermost first) and every kernel launch.
class KokkosRegionTrace {
 public:
  KokkosRegionTrace() {
    state_ = RegionTraceState{};
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_push_region_callback(&KokkosRegionTrace::push);
    tools::set_pop_region_callback(&KokkosRegionTrace::pop);
    tools::set_begin_parallel_for_callback(&KokkosRegionTrace::kernel);
    tools::set_begin_parallel_reduce_callback(&KokkosRegionTrace::kernel);
    tools::set_begin_parallel_scan_callback(&KokkosRegionTrace::kernel);
  }
  ~KokkosRegionTrace() {
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_push_region_callback(nullptr);
    tools::set_pop_region_callback(nullptr);
    tools::set_begin_parallel_for_callback(nullptr);
    tools::set_begin_parallel_reduce_callback(nullptr);
    tools::set_begin_parallel_scan_callback(nullptr);
  }
  KokkosRegionTrace(const KokkosRegionTrace&) = delete;
  KokkosRegionTrace& operator=(const KokkosRegionTrace&) = delete;

  /// Each push, as the path from the outermost open region down to the pushed one.
  static const std::vector<std::vector<std::string>>& regions() { return state_.pushed; }
  static const std::vector<TracedKernel>& kernels() { return state_.kernels; }
  /// Regions open now (0 once every push was popped).
  static std::size_t open() { return state_.stack.size(); }
  /// Pops that found no open region.
  static long unmatched_pops() { return state_.unmatched_pops; }

 private:
  static void push(const char* name) {
    state_.stack.emplace_back(name);
    state_.pushed.push_back(state_.stack);
  }
  static void pop() {
    if (state_.stack.empty()) {
      ++state_.unmatched_pops;
      return;
    }
    state_.stack.pop_back();
  }
  static void kernel(const char* name, std::uint32_t, std::uint64_t*) {
    state_.kernels.push_back({name, state_.stack});
  }
  static inline RegionTraceState state_{};
};

}  // namespace minigpu::testing
