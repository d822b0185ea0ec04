// The device-memory probe: one ring exchange of kProbeElements, checked element by element
// where it arrived, the verdict agreed by every rank.
#include "comm/gpu_aware_probe.hpp"

#include "comm/collectives.hpp"
#include "core/dispatch.hpp"

#include <mpi.h>

namespace minigpu::comm {
namespace {

/// This rank's probe message in memory space Mem, sent to `to` while `from`'s arrives; the
/// elements that arrived wrong. A function, not a generic lambda's body: nvcc defines no
/// extended device lambda inside a generic lambda.
template <class Mem>
std::int64_t exchange_in(const Communicator& comm, int to, int from) {
  const int rank = comm.rank();
  Kokkos::View<std::int32_t*, Mem> sent(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "minigpu::probe_sent"), kProbeElements);
  Kokkos::View<std::int32_t*, Mem> received("minigpu::probe_received", kProbeElements);  // zeros
  const auto out = sent;
  Kokkos::parallel_for(
      "minigpu::probe_fill", Kokkos::RangePolicy<typename Mem::execution_space>(0, kProbeElements),
      KOKKOS_LAMBDA(std::int64_t i) { out(i) = probe_value(i, rank); });
  Kokkos::fence();  // MPI knows nothing of Kokkos's queues (no label: Kokkos 3.4, the compatibility build)
  MPI_Sendrecv(sent.data(), static_cast<int>(kProbeElements), MPI_INT32_T, to, 7301, received.data(),
               static_cast<int>(kProbeElements), MPI_INT32_T, from, 7301, comm.raw(), MPI_STATUS_IGNORE);
  return probe_mismatches(Kokkos::View<const std::int32_t*, Mem>(received), from);
}

}  // namespace

std::string probe_transfer(const Communicator& comm, Device d) {
  const int rank = comm.rank(), size = comm.size();
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  const std::int64_t wrong = with_memory_space(
      d, [&](auto space) { return exchange_in<typename decltype(space)::type>(comm, to, from); });
  std::string verdict;
  const auto all = allgather_strings(std::to_string(wrong), comm);
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r] == "0") continue;
    verdict += (verdict.empty() ? "" : "; ") + ("rank " + std::to_string(r) + " received " + all[r] + " of " +
                                                std::to_string(kProbeElements) + " elements wrong");
  }
  return verdict;
}

}  // namespace minigpu::comm
