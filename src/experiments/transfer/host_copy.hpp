// transfer's copies within one rank: `bytes` from a source to a destination buffer in fixed
// memory spaces (host pageable or pinned, device), as `chunks` deep_copies. The source holds a
// position-dependent byte pattern and verify() checks every destination byte on the host.
#pragma once

#include "engine/experiment.hpp"
#include "kernels/byte_copy.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace minigpu {

constexpr std::uint64_t kTransferPatternSeed = 0x7A5F3E2D1C0B0A09ULL;

/// A source and a destination buffer in fixed memory spaces.
template <class DstSpace, class SrcSpace>
class CopyState : public CaseState {
 public:
  CopyState(std::int64_t bytes, std::int64_t chunks)
      : chunks_(chunks),
        dst_("minigpu::transfer::dst", bytes),
        src_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "minigpu::transfer::src"), bytes) {
    kernels::fill_pattern(src_, kTransferPatternSeed);
    Kokkos::fence();
  }

  void run() override { kernels::chunked_copy(dst_, src_, chunks_); }

  Check verify() override {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst_);
    const auto n = static_cast<std::int64_t>(host.extent(0));
    const std::int64_t bad = kernels::find_pattern_mismatch(host.data(), n, kTransferPatternSeed);
    if (bad >= 0)
      return {false, "destination byte " + std::to_string(bad) + " differs from the source pattern"};
    return {true, "all " + std::to_string(n) + " bytes match"};
  }

 private:
  std::int64_t chunks_;
  Kokkos::View<unsigned char*, Kokkos::LayoutRight, DstSpace> dst_;
  Kokkos::View<unsigned char*, Kokkos::LayoutRight, SrcSpace> src_;
};

}  // namespace minigpu
