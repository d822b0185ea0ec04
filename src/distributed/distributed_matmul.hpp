// Distributed C = A·B on a communicator of p ranks, each computing on its own device:
//   row    rank r holds rows [o_r, o_r + m_r) of A, B and C (m_r = n/p, or one more); one
//          in-place MPI_Allgatherv gives every rank all of B, then C_r = A_r·B locally
//   summa  a pr×pc grid; rank (I, J) holds blocks (I, J) of A, B and C. For each panel of k
//          (cut where either partition of k starts a part) the owning column broadcasts
//          A(I, panel) along process row I and the owning row B(panel, J) down column J;
//          every rank adds A(I, panel)·B(panel, J) to its C block
//   scalapack  ScaLAPACK's PxGEMM on a block-cyclic layout (distributed/scalapack_matmul.hpp)
// The local products run the chosen GemmKernel: the vendor BLAS (default) or the native one.
// A and B are small-integer formulas of global indices (kernels/generated_matrix.hpp): every
// rank builds only its own blocks, and checks need no stored copy of them.
#pragma once

#include "comm/collectives.hpp"
#include "comm/communicator.hpp"
#include "comm/views.hpp"
#include "core/backend.hpp"
#include "core/dispatch.hpp"
#include "core/shape.hpp"
#include "kernels/block_partition.hpp"
#include "kernels/gemm.hpp"
#include "kernels/generated_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

namespace minigpu {

enum class Decomposition { row, summa, scalapack };

/// The rectangle of global C a rank stores.
struct LocalBlock {
  std::int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
};

inline constexpr std::uint64_t kSeedA = 1, kSeedB = 2, kSeedCheck = 7;

class DistributedMatmul {
 public:
  using PhaseEnd = std::function<void(const char*)>;
  virtual ~DistributedMatmul() = default;
  /// C = A·B once; `end_phase` labels the time since its previous call ("comm" or "compute").
  virtual void multiply(const PhaseEnd& end_phase) = 0;
  /// max_i |(C·v - A·(B·v))_i| / max_i |(A·(B·v))_i| over all of C for a deterministic v,
  /// from A's and B's formulas and each rank's C block: O(n²/p) work, the same on every rank.
  virtual double identity_error() const = 0;
  /// All of C, row-major in double, on rank 0 of the communicator; empty elsewhere.
  virtual std::vector<double> gather_c() const = 0;
};

namespace detail {

// What both decompositions share: a C block on the device and the checks over it.
template <class T, class Mem>
class BlockedMatmul : public DistributedMatmul {
 public:
  using View = Kokkos::View<T*, Mem>;
  BlockedMatmul(const comm::Communicator& comm, std::int64_t n, GemmKernel kernel)
      : comm_(comm), rank_(comm.rank()), size_(comm.size()), n_(n), kernel_(kernel) {}

  double identity_error() const override {
    using Vec = Kokkos::View<double*, Mem>;
    Vec v("matmul_scaling::check_v", n_), cv("matmul_scaling::check_cv", n_);
    Vec bv("matmul_scaling::check_bv", n_), abv("matmul_scaling::check_abv", n_);
    kernels::fill_uniform(v, kSeedCheck, -1.0, 1.0);
    kernels::block_matvec_add(cv, c_, v, block_.row0, block_.col0, block_.rows, block_.cols);
    // Each rank evaluates its share of rows of B·v and A·(B·v); sums assemble the vectors.
    const auto share = kernels::block_partition(n_, size_);
    const std::int64_t r0 = share.offsets[rank_], nr = share.counts[rank_];
    kernels::generated_matvec_rows(bv, kernels::small_integer_matrix(kSeedB, n_), v, r0, nr, n_);
    const auto h_bv = sum_over_ranks(bv);
    Kokkos::deep_copy(bv, h_bv);
    kernels::generated_matvec_rows(abv, kernels::small_integer_matrix(kSeedA, n_), bv, r0, nr, n_);
    const auto h_cv = sum_over_ranks(cv), h_abv = sum_over_ranks(abv);
    double diff = 0, scale = 0;
    for (std::int64_t i = 0; i < n_; ++i) {
      const double d = std::abs(h_cv(i) - h_abv(i));
      if (std::isnan(d)) return std::numeric_limits<double>::infinity();
      diff = std::max(diff, d);
      scale = std::max(scale, std::abs(h_abv(i)));
    }
    return scale > 0 ? diff / scale : diff;
  }

  std::vector<double> gather_c() const override {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    const std::vector<double> mine(host.data(), host.data() + host.extent(0));
    const std::vector<std::int64_t> desc = {block_.row0, block_.rows, block_.col0, block_.cols};
    const auto descs = comm::gather_to_root(desc, 0, comm_);
    const auto blocks = comm::gather_to_root(mine, 0, comm_);
    std::vector<double> c(rank_ == 0 ? static_cast<std::size_t>(n_ * n_) : 0);
    for (std::size_t r = 0; r < blocks.size(); ++r) {
      const std::int64_t row0 = descs[r][0], col0 = descs[r][2], cols = descs[r][3];
      for (std::size_t e = 0; e < blocks[r].size(); ++e) {
        const auto i = static_cast<std::int64_t>(e);
        c[static_cast<std::size_t>((row0 + i / cols) * n_ + col0 + i % cols)] = blocks[r][e];
      }
    }
    return c;
  }

 protected:
  template <class V>
  auto sum_over_ranks(const V& v) const {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    comm::sum_in_place(h.data(), static_cast<std::int64_t>(h.extent(0)), comm_);
    return h;
  }

  comm::Communicator comm_;
  int rank_ = 0, size_ = 1;
  std::int64_t n_;
  GemmKernel kernel_;
  LocalBlock block_;
  View c_;
};

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
    comm::allgatherv_in_place(b_, counts_, offsets_, this->comm_, transport_);
    end_phase("comm");
    const std::int64_t n = this->n_;
    kernels::gemm(this->kernel_, this->c_, a_, b_, {this->block_.rows, n, n, n, n, n}, false);
    end_phase("compute");
  }

 private:
  View a_, b_;
  std::vector<std::int64_t> counts_, offsets_;
  comm::Transport<T> transport_;
};

template <class T, class Mem>
class SummaMatmul : public BlockedMatmul<T, Mem> {
  using Base = BlockedMatmul<T, Mem>;
  using typename Base::View;

 public:
  /// `grid.rows · grid.cols` must be the communicator's size; panels wider than `max_panel`
  /// (if > 0) are cut, which only bounds the panel buffers.
  SummaMatmul(const comm::Communicator& comm, std::int64_t n, kernels::ProcessGrid grid, comm::CommPath path,
              GemmKernel kernel, std::int64_t max_panel)
      : Base(comm, n, kernel), grid_(grid) {
    my_row_ = this->rank_ / grid.cols;
    my_col_ = this->rank_ % grid.cols;
    row_comm_ = comm.split(my_row_, my_col_);  // rank in row_comm_ = process column
    col_comm_ = comm.split(my_col_, my_row_);  // rank in col_comm_ = process row
    rows_ = kernels::block_partition(n, grid.rows);
    cols_ = kernels::block_partition(n, grid.cols);
    const std::int64_t mr = rows_.counts[my_row_], nc = cols_.counts[my_col_];
    this->block_ = {rows_.offsets[my_row_], mr, cols_.offsets[my_col_], nc};
    cuts_ = kernels::panel_boundaries(cols_, rows_, n, max_panel);
    const std::int64_t widest = kernels::widest_panel(cuts_);
    a_ = View("matmul_scaling::A_block", mr * nc);
    b_ = View("matmul_scaling::B_block", mr * nc);
    this->c_ = View("matmul_scaling::C_block", mr * nc);
    if (grid.cols > 1) a_panel_ = View("matmul_scaling::A_panel", mr * widest);
    if (grid.rows > 1) b_panel_ = View("matmul_scaling::B_panel", widest * nc);
    kernels::fill_generated_block(a_, kernels::small_integer_matrix(kSeedA, n), rows_.offsets[my_row_],
                                  cols_.offsets[my_col_], mr, nc);
    kernels::fill_generated_block(b_, kernels::small_integer_matrix(kSeedB, n), rows_.offsets[my_row_],
                                  cols_.offsets[my_col_], mr, nc);
    transport_ = comm::Transport<T>(path, std::max(mr, nc) * widest, "matmul_scaling::stage");
  }

  void multiply(const DistributedMatmul::PhaseEnd& end_phase) override {
    const std::int64_t mr = this->block_.rows, nc = this->block_.cols;
    for (std::size_t s = 0; s + 1 < cuts_.size(); ++s) {
      const std::int64_t k0 = cuts_[s], w = cuts_[s + 1] - k0;
      View a_src, b_src;
      std::int64_t lda = w;
      const int a_owner = cols_.owner(k0), b_owner = rows_.owner(k0);
      const std::int64_t a_col = k0 - cols_.offsets[a_owner], b_row = k0 - rows_.offsets[b_owner];
      if (grid_.cols == 1) {  // this rank owns every column of its A rows: no message
        a_src = comm::subrange(a_, a_col, mr * nc - a_col);
        lda = nc;
      } else if (my_col_ == a_owner && w == nc) {  // a whole block is already contiguous
        a_src = a_;
        lda = nc;
      } else {
        a_src = comm::subrange(a_panel_, 0, mr * w);
        if (my_col_ == a_owner)
          kernels::pack_block(a_src, comm::subrange(a_, a_col, mr * nc - a_col), mr, w, nc);
      }
      if (grid_.cols > 1) comm::broadcast(a_src, a_owner, row_comm_, transport_);
      // Rows of a row-major block are contiguous: B's panel never needs packing.
      b_src = grid_.rows == 1 || my_row_ == b_owner ? comm::subrange(b_, b_row * nc, w * nc)
                                                    : comm::subrange(b_panel_, 0, w * nc);
      if (grid_.rows > 1) comm::broadcast(b_src, b_owner, col_comm_, transport_);
      end_phase("comm");
      kernels::gemm(this->kernel_, this->c_, a_src, b_src, {mr, nc, w, lda, nc, nc}, s > 0);
      end_phase("compute");
    }
  }

 private:
  kernels::ProcessGrid grid_;
  int my_row_ = 0, my_col_ = 0;
  comm::Communicator row_comm_, col_comm_;
  kernels::BlockPartition rows_, cols_;
  std::vector<std::int64_t> cuts_;
  View a_, b_, a_panel_, b_panel_;
  comm::Transport<T> transport_;
};

}  // namespace detail

/// The product of n×n A and B over every rank of `comm`, in `device`'s memory. `grid` is
/// used by summa only and must multiply to the size of `comm`.
inline std::unique_ptr<DistributedMatmul> make_distributed_matmul(Decomposition d, DType dtype, Device device,
                                                                  const comm::Communicator& comm,
                                                                  std::int64_t n, kernels::ProcessGrid grid,
                                                                  comm::CommPath path, GemmKernel kernel,
                                                                  std::int64_t max_panel = 0) {
  if (d == Decomposition::scalapack)
    throw std::invalid_argument(
        "scalapack is built by make_scalapack_matmul (distributed/scalapack_matmul.hpp)");
  return dispatch(device, dtype, [&](auto place) -> std::unique_ptr<DistributedMatmul> {
    using T = typename decltype(place)::value_type;
    using Mem = typename decltype(place)::memory_space;
    if (d == Decomposition::row) return std::make_unique<detail::RowMatmul<T, Mem>>(comm, n, path, kernel);
    return std::make_unique<detail::SummaMatmul<T, Mem>>(comm, n, grid, path, kernel, max_panel);
  });
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
/// staging buffer counts where device memory is host memory.
inline std::uint64_t device_bytes_per_rank(Decomposition d, std::int64_t n, kernels::ProcessGrid grid,
                                           std::uint64_t elem, bool count_stage) {
  const std::uint64_t check = 4 * static_cast<std::uint64_t>(n) * sizeof(double);
  if (d == Decomposition::row) {
    const std::uint64_t rows =
        static_cast<std::uint64_t>(kernels::block_partition(n, grid.rows * grid.cols).largest());
    const std::uint64_t all = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
    return (2 * rows * static_cast<std::uint64_t>(n) + all + (count_stage ? all : 0)) * elem + check;
  }
  const auto rows = kernels::block_partition(n, grid.rows), cols = kernels::block_partition(n, grid.cols);
  const auto cuts = kernels::panel_boundaries(cols, rows, n);
  const std::uint64_t mr = rows.largest(), nc = cols.largest(), w = kernels::widest_panel(cuts);
  std::uint64_t elems = 3 * mr * nc + (grid.cols > 1 ? mr * w : 0) + (grid.rows > 1 ? w * nc : 0);
  if (count_stage) elems += std::max(mr, nc) * w;
  return elems * elem + check;
}

}  // namespace minigpu
