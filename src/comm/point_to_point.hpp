// Rank-to-rank messages and a sum-allreduce on rank-1 Kokkos Views, as the bandwidth tests of
// OSU and nccl-tests send them: a window of non-blocking messages in flight at once. Like
// views.hpp, a Transport says whether MPI gets the View's own memory (direct) or a host copy
// (staged: one copy to the host before sending, one back after receiving).
#pragma once

#include "comm/views.hpp"
#include "core/progress.hpp"

#include <mpi.h>

#include <vector>

namespace minigpu::comm {

template <class T>
MPI_Datatype byte_or_datatype() {
  if constexpr (sizeof(T) == 1) {
    return MPI_BYTE;
  } else {
    return mpi_datatype<T>();
  }
}

/// `messages` copies of all of `send` to `dest` and, at once, `messages` messages from
/// `source` into consecutive slots of `recv` (each slot as long as `send`); kNoRank skips a
/// side. Returns when every message of both sides has completed. A staged transport needs
/// room for `send` and all of `recv`.
template <class SendView, class RecvView>
void exchange_window(const SendView& send, int dest, const RecvView& recv, int source, int messages,
                     const Communicator& comm, const Transport<typename RecvView::non_const_value_type>& t) {
  using T = typename RecvView::non_const_value_type;
  constexpr int kTag = 7;
  Kokkos::fence();
  const std::int64_t n = static_cast<std::int64_t>(send.extent(0));
  const std::int64_t nr = source == kNoRank ? 0 : n * messages;
  const T* out = send.data();
  T* in = recv.data();
  if (t.path == CommPath::staged) {
    detail::require_stage(t, n + nr);
    if (dest != kNoRank) Kokkos::deep_copy(subrange(t.stage, 0, n), send);
    out = t.stage.data();
    in = t.stage.data() + n;
  }
  std::vector<MPI_Request> requests;
  requests.reserve(2 * static_cast<std::size_t>(messages));
  for (int m = 0; m < messages && source != kNoRank; ++m) {
    requests.emplace_back();
    MPI_Irecv(in + m * n, int_count(n), byte_or_datatype<T>(), source, kTag, comm.raw(), &requests.back());
  }
  for (int m = 0; m < messages && dest != kNoRank; ++m) {
    requests.emplace_back();
    // MPI-3 lets a send buffer be read by many sends in flight at once.
    MPI_Isend(out, int_count(n), byte_or_datatype<T>(), dest, kTag, comm.raw(), &requests.back());
  }
  const progress::Wait waiting("MPI_Waitall");
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  if (t.path == CommPath::staged && source != kNoRank) {
    Kokkos::deep_copy(subrange(recv, 0, nr), subrange(t.stage, n, nr));
  }
}

/// A zero-byte message from `from` to `to` (the other ranks do nothing): the receiver of a
/// one-way stream acknowledges the last message, so the sender's clock covers delivery.
inline void acknowledge(int from, int to, const Communicator& comm) {
  constexpr int kTag = 8;
  if (comm.rank() == from) MPI_Send(nullptr, 0, MPI_BYTE, to, kTag, comm.raw());
  if (comm.rank() == to) MPI_Recv(nullptr, 0, MPI_BYTE, from, kTag, comm.raw(), MPI_STATUS_IGNORE);
}

/// OSU's patterns between this rank and `peer` (kNoRank: this rank sits the pattern out), the
/// lower rank of the pair `leading`. ping_pong: `messages` round trips, the leader sending
/// `send`, the peer answering each with its own `send` (so each ends holding the other's data
/// in `recv`). The direct path is hpcc's and OSU's loop, blocking MPI_Send and MPI_Recv with
/// nothing between them: one fence and one watchdog mark for all the round trips, where
/// exchange_window puts a fence, a request vector and two marks before every message (the
/// issue measured 0.57 µs one way against hpcc's 0.39; this loop, 0.13-0.15 against hpcc's
/// 0.13 in one sitting). The answer is the peer's own buffer, as hpcc's is, not the message it
/// just received: echoing that ran 2 MB messages 15-20 % slower here.
template <class View>
void ping_pong(const View& send, const View& recv, int peer, bool leading, int messages,
               const Communicator& comm, const Transport<typename View::non_const_value_type>& t) {
  using T = typename View::non_const_value_type;
  if (peer == kNoRank) return;
  if (t.path == CommPath::direct) {
    constexpr int kTag = 7;
    Kokkos::fence();
    const int count = int_count(static_cast<std::int64_t>(send.extent(0)));
    const MPI_Datatype type = byte_or_datatype<T>();
    const progress::Wait waiting("MPI ping-pong");
    for (int k = 0; k < messages; ++k) {
      if (leading) {
        MPI_Send(send.data(), count, type, peer, kTag, comm.raw());
        MPI_Recv(recv.data(), count, type, peer, kTag, comm.raw(), MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(recv.data(), count, type, peer, kTag, comm.raw(), MPI_STATUS_IGNORE);
        MPI_Send(send.data(), count, type, peer, kTag, comm.raw());
      }
    }
    return;
  }
  for (int k = 0; k < messages; ++k) {
    if (leading) {
      exchange_window(send, peer, recv, kNoRank, 1, comm, t);
      exchange_window(send, kNoRank, recv, peer, 1, comm, t);
    } else {
      exchange_window(send, kNoRank, recv, peer, 1, comm, t);
      exchange_window(send, peer, recv, kNoRank, 1, comm, t);
    }
  }
}

/// The leader streams `messages` copies of `send` in flight into the peer's `recv` slots and
/// the peer acknowledges the last one, so the leader's clock covers delivery.
template <class View>
void stream_one_way(const View& send, const View& recv, int peer, bool leading, int messages,
                    const Communicator& comm, const Transport<typename View::non_const_value_type>& t) {
  if (peer == kNoRank) return;
  exchange_window(send, leading ? peer : kNoRank, recv, leading ? kNoRank : peer, messages, comm, t);
  acknowledge(leading ? peer : comm.rank(), leading ? comm.rank() : peer, comm);
}

/// recv = the element-wise sum of every rank's `send` (MPI_Allreduce, out of place, so `send`
/// keeps its values from one repetition to the next). A staged transport needs 2 · n.
template <class SendView, class RecvView>
void allreduce_sum(const SendView& send, const RecvView& recv, const Communicator& comm,
                   const Transport<typename RecvView::non_const_value_type>& t) {
  using T = typename RecvView::non_const_value_type;
  Kokkos::fence();
  const std::int64_t n = static_cast<std::int64_t>(send.extent(0));
  if (t.path == CommPath::direct) {
    const progress::Wait waiting("MPI_Allreduce");
    MPI_Allreduce(send.data(), recv.data(), int_count(n), mpi_datatype<T>(), MPI_SUM, comm.raw());
    return;
  }
  detail::require_stage(t, 2 * n);
  const auto host_send = subrange(t.stage, 0, n);
  const auto host_recv = subrange(t.stage, n, n);
  Kokkos::deep_copy(host_send, send);
  const progress::Wait waiting("MPI_Allreduce");
  MPI_Allreduce(host_send.data(), host_recv.data(), int_count(n), mpi_datatype<T>(), MPI_SUM, comm.raw());
  Kokkos::deep_copy(recv, host_recv);
}

}  // namespace minigpu::comm
