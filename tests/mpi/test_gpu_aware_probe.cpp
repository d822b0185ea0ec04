// The GPU-aware MPI probe (comm/gpu_aware_probe.hpp): a ring exchange of 4 MiB arrives whole on
// 1, 2 and 3 ranks from every kind of memory MPI is given, and the check counts exactly what a
// broken transfer leaves wrong: nothing arrived, another rank's message, or only the first 1000
// elements (what passed by accident with GPU support off on Tuolumne, kokkos-comm#235).
#include "comm/communicator.hpp"
#include "comm/gpu_aware.hpp"
#include "comm/gpu_aware_probe.hpp"
#include "core/dispatch.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

namespace minigpu {
namespace {

class GpuAwareProbe : public testing::OnEachDevice {
 protected:
  void SetUp() override {
    testing::OnEachDevice::SetUp();
    if (IsSkipped()) return;
    // A non-GPU-aware MPI handed a device pointer may crash rather than fail: never tried.
    if (!uses_host_memory(device()) && !comm::mpi_accepts_device_memory())
      GTEST_SKIP() << "MPI does not take device memory here: " << comm::describe_mpi_device_support();
  }
};
MINIGPU_ON_EACH_DEVICE(GpuAwareProbe);

TEST_P(GpuAwareProbe, ARingExchangeArrivesWhole) {
  EXPECT_EQ(comm::probe_transfer(comm::Communicator::world(), device()), "") << describe(device());
}

/// Elements [0, n) of `v`, rank `from`'s probe message (outside any generic lambda: nvcc).
template <class Mem>
void fill_probe_message(const Kokkos::View<std::int32_t*, Mem>& v, int from) {
  const auto fill = v;
  Kokkos::parallel_for(
      "test::probe_fill",
      Kokkos::RangePolicy<typename Mem::execution_space>(0, static_cast<std::int64_t>(v.extent(0))),
      KOKKOS_LAMBDA(std::int64_t i) { fill(i) = comm::probe_value(i, from); });
  Kokkos::fence();
}

TEST_P(GpuAwareProbe, WhatABrokenTransferLeavesIsCounted) {
  const std::int64_t n = comm::kProbeElements;
  with_memory_space(device(), [&](auto space) {
    using Mem = typename decltype(space)::type;
    Kokkos::View<std::int32_t*, Mem> got("test::probe_got", n);
    const Kokkos::View<const std::int32_t*, Mem> seen = got;
    EXPECT_EQ(comm::probe_mismatches(seen, 1), n) << "nothing arrived: zeros everywhere";
    fill_probe_message(got, 1);
    EXPECT_EQ(comm::probe_mismatches(seen, 1), 0) << "rank 1's message, whole";
    EXPECT_EQ(comm::probe_mismatches(seen, 2), n) << "rank 1's message is not rank 2's anywhere";
    Kokkos::deep_copy(Kokkos::subview(got, std::make_pair(std::int64_t(1000), n)), 0);
    EXPECT_EQ(comm::probe_mismatches(seen, 1), n - 1000) << "only the first 1000 elements arrived";
  });
}

}  // namespace
}  // namespace minigpu
