// MPI on contiguous rank-1 Kokkos Views. Each call hands MPI the View's own memory (direct:
// host memory, or device memory with a GPU-aware MPI) or stages it through a host buffer.
// Device work is fenced first: MPI knows nothing of Kokkos's queues and would read stale data.
#pragma once

#include "comm/communicator.hpp"
#include "comm/gpu_aware.hpp"
#include "comm/mpi_types.hpp"
#include "core/backend.hpp"
#include "core/progress.hpp"

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace minigpu::comm {

/// How transfers of T travel, with the host buffer that staged transfers pass through
/// (page-locked where the backend has it, so device copies run at full speed).
template <class T>
struct Transport {
  CommPath path = CommPath::direct;
  Kokkos::View<T*, PinnedHostMemSpace> stage;  ///< staged only: as long as the largest message

  Transport() = default;
  Transport(CommPath p, std::int64_t largest, const std::string& label) : path(p) {
    if (p == CommPath::staged) {
      stage = Kokkos::View<T*, PinnedHostMemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                                   largest);
    }
  }
};

/// Elements [begin, begin + count) of a rank-1 View, sharing its memory.
template <class View>
auto subrange(const View& v, std::int64_t begin, std::int64_t count) {
  return Kokkos::subview(v, std::make_pair(begin, begin + count));
}

namespace detail {

template <class T>
void require_stage(const Transport<T>& t, std::int64_t elements) {
  if (static_cast<std::int64_t>(t.stage.extent(0)) < elements) {
    throw std::logic_error("staging buffer holds " + std::to_string(t.stage.extent(0)) + " elements, " +
                           std::to_string(elements) + " needed");
  }
}

}  // namespace detail

/// All of `data` from `root` to every rank of `comm` (MPI_Bcast).
template <class View>
void broadcast(const View& data, int root, const Communicator& comm,
               const Transport<typename View::non_const_value_type>& t) {
  using T = typename View::non_const_value_type;
  Kokkos::fence();
  const std::int64_t n = static_cast<std::int64_t>(data.extent(0));
  if (t.path == CommPath::direct) {
    const progress::Wait waiting("MPI_Bcast");
    MPI_Bcast(data.data(), int_count(n), mpi_datatype<T>(), root, comm.raw());
    return;
  }
  detail::require_stage(t, n);
  const auto host = subrange(t.stage, 0, n);
  const bool is_root = comm.rank() == root;
  if (is_root) Kokkos::deep_copy(host, data);
  const progress::Wait waiting("MPI_Bcast");
  MPI_Bcast(host.data(), int_count(n), mpi_datatype<T>(), root, comm.raw());
  if (!is_root) Kokkos::deep_copy(data, host);
}

/// Rank r's block [offsets[r], offsets[r] + counts[r]) of `data`, already in place on rank
/// r, lands at the same place on every rank (MPI_Allgatherv with MPI_IN_PLACE).
template <class View>
void allgatherv_in_place(const View& data, const std::vector<std::int64_t>& counts,
                         const std::vector<std::int64_t>& offsets, const Communicator& comm,
                         const Transport<typename View::non_const_value_type>& t) {
  using T = typename View::non_const_value_type;
  Kokkos::fence();
  std::vector<int> icounts, ioffsets;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    icounts.push_back(int_count(counts[r]));
    ioffsets.push_back(int_count(offsets[r]));
  }
  if (t.path == CommPath::direct) {
    const progress::Wait waiting("MPI_Allgatherv");
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data.data(), icounts.data(), ioffsets.data(),
                   mpi_datatype<T>(), comm.raw());
    return;
  }
  const std::int64_t total = offsets.back() + counts.back();
  detail::require_stage(t, total);
  const int me = comm.rank();
  Kokkos::deep_copy(subrange(t.stage, offsets[me], counts[me]), subrange(data, offsets[me], counts[me]));
  const progress::Wait waiting("MPI_Allgatherv");
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, t.stage.data(), icounts.data(), ioffsets.data(),
                 mpi_datatype<T>(), comm.raw());
  Kokkos::deep_copy(subrange(data, 0, total), subrange(t.stage, 0, total));
}

/// Sends all of `send` to `dest` while receiving all of `recv` from `source` (MPI_Sendrecv;
/// kNoRank skips a side). A staged transport needs room for both messages.
template <class SendView, class RecvView>
void sendrecv(const SendView& send, int dest, const RecvView& recv, int source, int tag,
              const Communicator& comm, const Transport<typename RecvView::non_const_value_type>& t) {
  using T = typename RecvView::non_const_value_type;
  Kokkos::fence();
  const std::int64_t ns = static_cast<std::int64_t>(send.extent(0)),
                     nr = static_cast<std::int64_t>(recv.extent(0));
  if (t.path == CommPath::direct) {
    const progress::Wait waiting("MPI_Sendrecv");
    MPI_Sendrecv(send.data(), int_count(ns), mpi_datatype<T>(), dest, tag, recv.data(), int_count(nr),
                 mpi_datatype<T>(), source, tag, comm.raw(), MPI_STATUS_IGNORE);
    return;
  }
  detail::require_stage(t, ns + nr);
  const auto host_send = subrange(t.stage, 0, ns);
  const auto host_recv = subrange(t.stage, ns, nr);
  Kokkos::deep_copy(host_send, send);
  const progress::Wait waiting("MPI_Sendrecv");
  MPI_Sendrecv(host_send.data(), int_count(ns), mpi_datatype<T>(), dest, tag, host_recv.data(), int_count(nr),
               mpi_datatype<T>(), source, tag, comm.raw(), MPI_STATUS_IGNORE);
  if (source != kNoRank) Kokkos::deep_copy(recv, host_recv);
}

}  // namespace minigpu::comm
