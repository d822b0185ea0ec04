// The case states of the `transfer` experiment. Within one rank, CopyState: `bytes` from a
// source to a destination buffer in fixed memory spaces (host pageable or pinned, device), as
// `chunks` deep_copies (buffers as kernels::copy_buffer says); the source holds a position-
// dependent byte pattern and verify() checks every destination byte on the host.
// Between ranks: buffers in one device's memory on each rank, moved by MPI, directly
// (GPU-aware MPI, or host memory) or staged through the host. Ranks pair up as
// comm/rank_pairs.hpp says; a rank without a partner idles in point-to-point cases. Host
// buffers of 256 KiB and more sit on transparent huge pages (core/host_pages.hpp).
//   pingpong   the lower rank sends, the partner answers, `messages` times: bytes 2·n·m
//              per pair, one-way latency = time / (2m)
//   uni        the lower rank streams m messages in flight, the partner acknowledges: n·m
//   bi         both stream m messages to each other at once: 2·n·m
//   allreduce  every rank's n-byte float32 gradient summed on all (MPI_Allreduce), counted as
//              nccl-tests' bus bandwidth: bytes = n · 2(p−1)/p, so GB/s is busbw
// Received bytes are checked against the sender's pattern; allreduce sums of small integers
// against an exact host sum.
#pragma once

#include "comm/point_to_point.hpp"
#include "comm/rank_pairs.hpp"
#include "core/host_pages.hpp"
#include "engine/experiment.hpp"
#include "kernels/byte_copy.hpp"
#include "kernels/fill_integers.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
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
        dst_(kernels::copy_buffer<DstSpace, DstSpace, SrcSpace>("minigpu::transfer::dst", bytes)),
        src_(kernels::copy_buffer<SrcSpace, DstSpace, SrcSpace>("minigpu::transfer::src", bytes)) {
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

using comm::RankPattern;

struct RankTransferCase {
  RankPattern pattern = RankPattern::pingpong;
  comm::CommPath path = comm::CommPath::direct;
  std::int64_t bytes = 0;
  int messages = 1;
  comm::RankPairing pairing = comm::RankPairing::neighbour;
  /// This rank's partner in point-to-point cases (comm::pair_partner), or comm::kNoRank.
  int partner = comm::kNoRank;
};

inline std::uint64_t rank_seed(int rank) { return 0x5EED0000ULL + static_cast<std::uint64_t>(rank); }

/// pingpong, uni and bi between the ranks of a pair, in memory space Mem.
template <class Mem>
class PeerState : public CaseState {
 public:
  PeerState(const RankTransferCase& c, const comm::Communicator& comm)
      : case_(c),
        comm_(comm),
        me_(comm.rank()),
        peer_(c.partner),
        leader_(peer_ != comm::kNoRank && me_ < peer_),
        send_(huge_page_view<unsigned char, Mem>("minigpu::transfer::peer_send", c.bytes)),
        recv_(huge_page_view<unsigned char, Mem>(
            "minigpu::transfer::peer_recv", c.bytes * (c.pattern == RankPattern::pingpong ? 1 : c.messages))),
        transport_(c.path, c.bytes + static_cast<std::int64_t>(recv_.extent(0)),
                   "minigpu::transfer::peer_stage") {
    // Each rank sends its own pattern, the echo of a ping-pong too (hpcc's loop).
    kernels::fill_pattern(send_, rank_seed(me_));
    Kokkos::fence();
  }

  void run() override {
    const int m = case_.messages;
    switch (case_.pattern) {
      case RankPattern::pingpong:
        comm::ping_pong(send_, recv_, peer_, leader_, m, comm_, transport_);
        break;
      case RankPattern::uni:
        comm::stream_one_way(send_, recv_, peer_, leader_, m, comm_, transport_);
        break;
      case RankPattern::bi:  // both ways at once
        if (peer_ != comm::kNoRank) comm::exchange_window(send_, peer_, recv_, peer_, m, comm_, transport_);
        break;
      case RankPattern::allreduce:  // AllreduceState's
        break;
    }
  }

  Check verify() override {
    if (peer_ == comm::kNoRank) return {true, "no partner rank: idle"};
    if (case_.pattern == RankPattern::uni && leader_) return {true, "sender (the partner checks)"};
    const int from = peer_;
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), recv_);
    const std::int64_t n = case_.bytes;
    const std::int64_t bad = kernels::find_repeated_pattern_mismatch(
        host.data(), static_cast<std::int64_t>(host.extent(0)), n, rank_seed(from));
    if (bad >= 0) {
      return {false, "message " + std::to_string(bad / n) + " byte " + std::to_string(bad % n) +
                         " differs from rank " + std::to_string(from) + "'s pattern"};
    }
    return {true,
            "all " + std::to_string(host.extent(0)) + " received bytes match rank " + std::to_string(from)};
  }

 private:
  RankTransferCase case_;
  comm::Communicator comm_;
  int me_, peer_;
  bool leader_;
  Kokkos::View<unsigned char*, Mem> send_, recv_;
  comm::Transport<unsigned char> transport_;
};

/// A float32 gradient of bytes/4 elements summed over every rank, in memory space Mem.
template <class Mem>
class AllreduceState : public CaseState {
 public:
  AllreduceState(const RankTransferCase& c, const comm::Communicator& comm)
      : comm_(comm),
        send_(huge_page_view<float, Mem>("minigpu::transfer::allreduce_send", c.bytes / 4)),
        recv_(huge_page_view<float, Mem>("minigpu::transfer::allreduce_recv", c.bytes / 4)),
        transport_(c.path, 2 * (c.bytes / 4), "minigpu::transfer::allreduce_stage") {
    kernels::fill_small_integers(send_, rank_seed(comm.rank()), kRadius);
    Kokkos::fence();
  }

  void run() override { comm::allreduce_sum(send_, recv_, comm_, transport_); }

  Check verify() override {
    // Sums of at most 2·p small integers are exact in float32 for any rank count MPI allows here.
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), recv_);
    const int ranks = comm_.size();
    const std::int64_t i = kernels::find_small_integer_sum_mismatch(
        host.data(), static_cast<std::int64_t>(host.extent(0)), rank_seed(0), ranks, kRadius);
    if (i >= 0) {
      return {false, "element " + std::to_string(i) + " is " + std::to_string(host(i)) + ", the sum over " +
                         std::to_string(ranks) + " ranks is " +
                         std::to_string(kernels::small_integer_sum(rank_seed(0), ranks, i, kRadius))};
    }
    return {true,
            "all " + std::to_string(host.extent(0)) + " sums over " + std::to_string(ranks) + " ranks exact"};
  }

 private:
  static constexpr int kRadius = 2;
  comm::Communicator comm_;
  Kokkos::View<float*, Mem> send_, recv_;
  comm::Transport<float> transport_;
};

}  // namespace minigpu
