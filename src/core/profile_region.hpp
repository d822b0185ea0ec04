// A Kokkos profiling region for the life of a scope, so tools (kp_space_time_stack, Nsight
// Systems through Kokkos' NVTX connector) see each phase as a node of one tree.
#pragma once

#include "core/progress.hpp"

#include <Kokkos_Core.hpp>

#include <string>

namespace minigpu {

/// Pushes region `name` now and pops it when the scope ends, an exception included, so an
/// error never leaves the tool's stack unbalanced. (Kokkos 3.4 has no ScopedRegion.) Without
/// a tool loaded, Kokkos returns at once: the cost is a string and a branch.
class ProfileRegion {
 public:
  /// The run's watchdog reads the same regions (core/progress.hpp) to say where a rank stopped.
  explicit ProfileRegion(const std::string& name) {
    Kokkos::Profiling::pushRegion(name);
    progress::enter(name);
  }
  ~ProfileRegion() {
    progress::leave();
    Kokkos::Profiling::popRegion();
  }
  ProfileRegion(const ProfileRegion&) = delete;
  ProfileRegion& operator=(const ProfileRegion&) = delete;
};

}  // namespace minigpu
