// A broadcast in flight (MPI_Ibcast) over a contiguous rank-1 View, so that a distributed
// product can multiply one panel while the next one travels (SUMMA with overlap). The caller
// calls test() while it computes: most MPI transports only progress inside MPI calls.
// Staged transfers need a host buffer of their own for each broadcast in flight.
#pragma once

#include "comm/communicator.hpp"
#include "comm/gpu_aware.hpp"
#include "comm/mpi_types.hpp"
#include "core/backend.hpp"
#include "core/progress.hpp"

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace minigpu::comm {

template <class View>
class PendingBroadcast {
 public:
  using T = typename View::non_const_value_type;
  using HostView = Kokkos::View<T*, PinnedHostMemSpace>;

  PendingBroadcast() = default;
  /// Posts the broadcast of all of `data` from `root`. Staged, `stage` is this broadcast's own
  /// host buffer (at least as long as `data`), untouched by anything else until wait().
  PendingBroadcast(const View& data, int root, const Communicator& comm, CommPath path, const HostView& stage)
      : data_(data) {
    Kokkos::fence();  // MPI reads the memory itself: device work on it must be done
    const std::int64_t n = static_cast<std::int64_t>(data.extent(0));
    T* buffer = data.data();
    if (path == CommPath::staged) {
      if (static_cast<std::int64_t>(stage.extent(0)) < n) {
        throw std::logic_error("staging buffer holds " + std::to_string(stage.extent(0)) + " elements, " +
                               std::to_string(n) + " needed");
      }
      host_ = Kokkos::subview(stage, std::make_pair(std::int64_t{0}, n));
      if (comm.rank() == root) Kokkos::deep_copy(host_, data);
      copy_back_ = comm.rank() != root;
      buffer = host_.data();
    }
    MPI_Ibcast(buffer, int_count(n), mpi_datatype<T>(), root, comm.raw(), &request_);
  }
  PendingBroadcast(const PendingBroadcast&) = delete;
  PendingBroadcast& operator=(const PendingBroadcast&) = delete;
  PendingBroadcast(PendingBroadcast&& other) noexcept { *this = std::move(other); }
  PendingBroadcast& operator=(PendingBroadcast&& other) noexcept {
    if (this != &other) {
      complete();
      request_ = std::exchange(other.request_, MPI_REQUEST_NULL);
      data_ = other.data_;
      host_ = other.host_;
      copy_back_ = std::exchange(other.copy_back_, false);
    }
    return *this;
  }
  // A request must never be left behind: its buffers would be written after they are freed.
  // While an exception unwinds, the other ranks may never join the broadcast: waiting would
  // hang the job that main() is about to abort.
  ~PendingBroadcast() {
    if (std::uncaught_exceptions() == 0) complete();
  }

  /// Lets MPI progress the broadcast; true once it is complete (wait() is still needed).
  bool test() {
    if (request_ == MPI_REQUEST_NULL) return true;
    int done = 0;
    MPI_Test(&request_, &done, MPI_STATUS_IGNORE);
    return done != 0;
  }
  /// Completes the broadcast: `data` holds the root's values on every rank afterwards.
  void wait() { complete(); }

 private:
  void complete() noexcept {
    if (request_ != MPI_REQUEST_NULL) {
      const progress::Wait waiting("MPI_Wait");
      MPI_Wait(&request_, MPI_STATUS_IGNORE);
    }
    if (copy_back_) Kokkos::deep_copy(data_, host_);
    copy_back_ = false;
  }

  MPI_Request request_ = MPI_REQUEST_NULL;
  View data_;
  HostView host_;
  bool copy_back_ = false;
};

}  // namespace minigpu::comm
