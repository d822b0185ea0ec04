// Counts what code does through Kokkos's own tool hooks, an observer outside the code under
// test: kernel launches, deep copies, allocations, and launches or regions of one name.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>

namespace minigpu::testing {

struct KokkosEventCounts {
  long fors = 0, reduces = 0, copies = 0, allocations = 0, named = 0;
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
  }
  ~KokkosEventCounter() {
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_begin_parallel_for_callback(nullptr);
    tools::set_begin_parallel_reduce_callback(nullptr);
    tools::set_begin_deep_copy_callback(nullptr);
    tools::set_allocate_data_callback(nullptr);
    tools::set_push_region_callback(nullptr);
  }
  KokkosEventCounter(const KokkosEventCounter&) = delete;
  KokkosEventCounter& operator=(const KokkosEventCounter&) = delete;

  static long parallel_fors() { return counts_.fors; }
  static long parallel_reduces() { return counts_.reduces; }
  static long deep_copies() { return counts_.copies; }
  static long allocations() { return counts_.allocations; }
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
  static void region(const char* name) {
    if (std::strcmp(name, name_) == 0) ++counts_.named;
  }
  static inline const char* name_ = "";
  static inline KokkosEventCounts counts_{};
};

}  // namespace minigpu::testing
