// Distributed C = A·B on a communicator of p ranks, each computing on its own device:
//   row    rank r holds rows [o_r, o_r + m_r) of A, B and C (m_r = n/p, or one more); one
//          in-place MPI_Allgatherv gives every rank all of B, then C_r = A_r·B locally
//   summa  a pr×pc grid of blocks, panel broadcasts along rows and columns, blocking or
//          overlapped with the local products (distributed/summa_matmul.hpp)
//   scalapack  ScaLAPACK's PxGEMM on a block-cyclic layout (distributed/scalapack_matmul.hpp)
// The local products run the GemmKernel the experiment chose: the vendor BLAS or the native one.
#pragma once

#include "core/backend.hpp"
#include "core/dispatch.hpp"
#include "core/profile_region.hpp"
#include "distributed/blocked_matmul.hpp"
#include "distributed/summa_matmul.hpp"
#include "gemm/choice.hpp"
#include "kernels/gemm.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace minigpu {

enum class Decomposition { row, summa, scalapack };

/// One product of a scaling sweep: which algorithm multiplies, on how many ranks, at which n.
struct ScalingCase {
  Decomposition decomposition = Decomposition::row;
  int p = 1;
  std::int64_t n = 0;
  kernels::ProcessGrid grid;
  SummaOptions summa;  ///< summa only
};

/// The case's name in findings and model curves: "summa" is the default (overlapped) schedule.
inline std::string algorithm_name(const ScalingCase& c) {
  if (c.decomposition != Decomposition::summa)
    return c.decomposition == Decomposition::row ? "row" : "scalapack";
  return c.summa.overlap ? "summa" : "summa_blocking";
}

/// `kernel: auto` for a sweep with an overlapped SUMMA on several ranks: where the native kernel
/// tests MPI between its cache blocks and the vendor BLAS only between two chunks (host memory,
/// summa_panel_whole), native is kept unless the vendor BLAS measured more than 5 % faster. Level
/// at n = 4096 on a Zen 4 VM, auto picked OpenBLAS for float64 on a tie and 84-104 % of the
/// communication stayed exposed over TCP, against 16-24 % with the native kernel (2026-12-05);
/// 5 % of the compute is less than that.
inline NativePreference overlapped_summa_preference(Device device, const std::vector<ScalingCase>& schedules,
                                                    const std::vector<std::int64_t>& ranks) {
  const bool overlapping = std::any_of(schedules.begin(), schedules.end(), [](const ScalingCase& s) {
    return s.decomposition == Decomposition::summa && s.summa.overlap;
  });
  const bool several = std::any_of(ranks.begin(), ranks.end(), [](std::int64_t p) { return p > 1; });
  if (!overlapping || !several || !uses_host_memory(device) || !summa_panel_whole(false, GemmKernel::native))
    return {};
  return {0.05,
          "for overlapped SUMMA: it tests MPI between its cache blocks, the vendor BLAS only between "
          "2 chunks"};
}

namespace detail {

template <class T, class Mem>
class RowMatmul : public BlockedMatmul<T, Mem> {
  using Base = BlockedMatmul<T, Mem>;
  using typename Base::View;

 public:
  RowMatmul(const comm::Communicator& comm, std::int64_t n, comm::CommPath path, GemmKernel kernel)
      : Base(comm, n, kernel) {
    const auto part = kernels::block_partition(n, this->size_);
    const std::int64_t row0 = part.offsets[this->rank_], rows = part.counts[this->rank_];
    this->block_ = {row0, rows, 0, n};
    for (int r = 0; r < this->size_; ++r) {
      counts_.push_back(part.counts[r] * n);
      offsets_.push_back(part.offsets[r] * n);
    }
    a_ = View("matmul_scaling::A_rows", rows * n);
    b_ = View("matmul_scaling::B_all", n * n);
    this->c_ = View("matmul_scaling::C_rows", rows * n);
    kernels::fill_generated_block(a_, kernels::small_integer_matrix(kSeedA, n), row0, 0, rows, n);
    kernels::fill_generated_block(comm::subrange(b_, row0 * n, rows * n),
                                  kernels::small_integer_matrix(kSeedB, n), row0, 0, rows, n);
    transport_ = comm::Transport<T>(path, n * n, "matmul_scaling::stage");
  }

  void multiply(const DistributedMatmul::PhaseEnd& end_phase) override {
    {
      const ProfileRegion region("comm");
      comm::allgatherv_in_place(b_, counts_, offsets_, this->comm_, transport_);
      end_phase("comm");
    }
    const ProfileRegion region("compute");
    const std::int64_t n = this->n_;
    kernels::gemm(this->kernel_, this->c_, a_, b_, {this->block_.rows, n, n, n, n, n}, false);
    end_phase("compute");
  }

 private:
  View a_, b_;
  std::vector<std::int64_t> counts_, offsets_;
  comm::Transport<T> transport_;
};

}  // namespace detail

/// The product of n×n A and B over every rank of `comm`, in `device`'s memory. `grid` is
/// used by summa only and must multiply to the size of `comm`.
inline std::unique_ptr<DistributedMatmul> make_distributed_matmul(Decomposition d, DType dtype, Device device,
                                                                  const comm::Communicator& comm,
                                                                  std::int64_t n, kernels::ProcessGrid grid,
                                                                  comm::CommPath path, GemmKernel kernel,
                                                                  SummaOptions summa = {}) {
  if (d == Decomposition::scalapack)
    throw std::invalid_argument(
        "scalapack is built by make_scalapack_matmul (distributed/scalapack_matmul.hpp)");
  return dispatch(device, dtype, [&](auto place) -> std::unique_ptr<DistributedMatmul> {
    using T = typename decltype(place)::value_type;
    using Mem = typename decltype(place)::memory_space;
    if (d == Decomposition::row) return std::make_unique<detail::RowMatmul<T, Mem>>(comm, n, path, kernel);
    return std::make_unique<detail::SummaMatmul<T, Mem>>(comm, n, grid, path, kernel, summa);
  });
}

/// The largest n a distributed product takes: n² elements must fit MPI's int message counts.
inline constexpr std::int64_t kMaxScalingN = 46340;

/// "" or why a product of n×n on p ranks cannot run (`weak`: n is n_p = round(n·∛p)): every
/// rank, every process row and column, needs a row, and n² must fit an MPI count.
inline std::string scaling_size_refusal(std::int64_t n, std::int64_t p, bool weak) {
  if (n < p)
    return (weak ? "n_p = round(n·∛p) = " : "n = ") + std::to_string(n) +
           " is smaller than p=" + std::to_string(p) +
           " ranks: every rank (every process row and column) needs a row";
  if (n > kMaxScalingN)
    return "n_p = " + std::to_string(n) + " at p=" + std::to_string(p) + " exceeds " +
           std::to_string(kMaxScalingN);
  return "";
}

/// Elements that all ranks together receive in one product: (p-1)·n² for row, whose every
/// rank gathers the rest of B; (pr-1 + pc-1)·n² for summa, each panel reaching the other
/// ranks of its process row or column. scalapack counts as summa: for square operands PBLAS
/// keeps C in place and broadcasts A's column panels along process rows and B's row panels
/// down process columns, the same volume (an estimate from the algorithm, not measured).
inline double received_elements(Decomposition d, std::int64_t n, kernels::ProcessGrid grid) {
  const double n2 = static_cast<double>(n) * static_cast<double>(n);
  if (d == Decomposition::row) return (grid.rows * grid.cols - 1) * n2;
  return (grid.rows - 1 + grid.cols - 1) * n2;
}

/// Bytes the busiest rank allocates in device memory, the check's vectors included; a host
/// staging buffer counts where device memory is host memory. Overlapped SUMMA keeps two
/// panels (and, staged, two stages) of each kind.
inline std::uint64_t device_bytes_per_rank(Decomposition d, std::int64_t n, kernels::ProcessGrid grid,
                                           std::uint64_t elem, bool count_stage, SummaOptions summa = {}) {
  const std::uint64_t check = 4 * static_cast<std::uint64_t>(n) * sizeof(double);
  if (d == Decomposition::row) {
    const std::uint64_t rows =
        static_cast<std::uint64_t>(kernels::block_partition(n, grid.rows * grid.cols).largest());
    const std::uint64_t all = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
    return (2 * rows * static_cast<std::uint64_t>(n) + all + (count_stage ? all : 0)) * elem + check;
  }
  const auto rows = kernels::block_partition(n, grid.rows), cols = kernels::block_partition(n, grid.cols);
  const auto cuts = kernels::panel_boundaries(cols, rows, n, summa.max_panel);
  const std::uint64_t mr = rows.largest(), nc = cols.largest(), w = kernels::widest_panel(cuts);
  const std::uint64_t slots = summa.overlap ? 2 : 1;
  std::uint64_t elems = 3 * mr * nc + slots * ((grid.cols > 1 ? mr * w : 0) + (grid.rows > 1 ? w * nc : 0));
  if (count_stage) elems += summa.overlap ? 2 * (mr + nc) * w : std::max(mr, nc) * w;
  return elems * elem + check;
}

}  // namespace minigpu
