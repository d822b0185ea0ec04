// Whether MPI really moves device memory, checked instead of taken on the MPI's word: some
// systems pass small device messages with GPU support off (kokkos-comm#235: under 1000
// elements on Tuolumne without MPICH_GPU_SUPPORT_ENABLED), so only a message well above that,
// its every element checked on arrival, can tell.
#pragma once

#include "comm/communicator.hpp"
#include "core/backend.hpp"
#include "core/device.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace minigpu::comm {

/// 4 MiB of int32 per rank: a thousand times the size that passed by accident, and past the
/// eager limits where MPIs switch to a rendezvous (and to another GPU path).
inline constexpr std::int64_t kProbeElements = std::int64_t(1) << 20;

/// Element i of rank `from`'s probe message: distinct per element and per sender, never 0 (a
/// message that never arrived leaves zeros).
KOKKOS_INLINE_FUNCTION std::int32_t probe_value(std::int64_t i, int from) {
  return static_cast<std::int32_t>((i * 7 + std::int64_t(from) * 1000003) % 2147483647) + 1;
}

/// probe_mismatches's body: counts the elements of `data` that are not rank `from`'s probe
/// message. A functor, not a KOKKOS_LAMBDA: see MapBody (kernels/elementwise.hpp).
template <class Mem>
struct ProbeMismatchCountBody {
  using value_type = std::int64_t;
  Kokkos::View<const std::int32_t*, Mem> data;
  int from;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& count) const {
    if (data(i) != probe_value(i, from)) ++count;
  }
};

/// Elements of `received` that are not rank `from`'s probe message, counted where they live.
template <class Mem>
std::int64_t probe_mismatches(const Kokkos::View<const std::int32_t*, Mem>& received, int from) {
  std::int64_t wrong = 0;
  Kokkos::parallel_reduce(
      "minigpu::probe_check",
      Kokkos::RangePolicy<typename Mem::execution_space>(0, static_cast<std::int64_t>(received.extent(0))),
      ProbeMismatchCountBody<Mem>{received, from}, wrong);
  return wrong;
}

/// Collective over `comm`. Each rank sends kProbeElements from memory of `d` straight through
/// MPI to the next rank of a ring (itself on one rank) and checks what arrived. "" when every
/// rank got its neighbour's message whole, else which ranks did not. On a real GPU call it only
/// where MPI says it takes device memory: an MPI that does not may crash on a device pointer.
std::string probe_transfer(const Communicator& comm, Device d);

}  // namespace minigpu::comm
