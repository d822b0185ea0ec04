// What every distributed product shares: the interface the matmul_scaling experiment drives,
// and the C block on the device with the checks over it. A and B are small-integer formulas
// of global indices (kernels/generated_matrix.hpp): every rank builds only its own blocks,
// and checks need no stored copy of them.
#pragma once

#include "comm/collectives.hpp"
#include "comm/communicator.hpp"
#include "comm/mpi_session.hpp"
#include "comm/views.hpp"
#include "core/backend.hpp"
#include "core/gemm_dims.hpp"
#include "kernels/block_partition.hpp"
#include "kernels/generated_matrix.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace minigpu {

/// The rectangle of global C a rank stores.
struct LocalBlock {
  std::int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
};

inline constexpr std::uint64_t kSeedA = 1, kSeedB = 2, kSeedCheck = 7;

/// Whether overlapped SUMMA multiplies each panel in one product, testing MPI during it: on a
/// GPU, whose launch returns at once, and with the native host kernel, which calls MPI between
/// its blocks from the main thread, also inside its parallel regions (so only where the MPI
/// library allows that, or no such region runs). Otherwise in chunks (kernels::progress_chunks).
inline bool summa_panel_whole(bool kernels_return_at_launch, GemmKernel kernel) {
  return kernels_return_at_launch ||
         (kernel == GemmKernel::native && (mpi_funneled() || HostExecSpace().concurrency() == 1));
}

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
  /// Panels whose broadcasts had completed by the end of the product before them, over every
  /// multiply() so far (overlapped SUMMA; 0 for the schedules that overlap nothing).
  virtual int panels_arrived_during_compute() const { return 0; }
};

/// max_i |got_i - want_i| / max_i |want_i| over n host entries (the difference alone when want
/// is 0, infinity for a NaN): the identity check's verdict.
template <class GotView, class WantView>
double max_relative_difference(const GotView& got, const WantView& want, std::int64_t n) {
  double diff = 0, scale = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = std::abs(got(i) - want(i));
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, d);
    scale = std::max(scale, std::abs(want(i)));
  }
  return scale > 0 ? diff / scale : diff;
}

/// Entries of C (row-major, n×n) that differ from a host triple loop over A's and B's formulas.
inline std::int64_t host_product_mismatches(const std::vector<double>& c, std::int64_t n) {
  const auto a = kernels::small_integer_matrix(kSeedA, n), b = kernels::small_integer_matrix(kSeedB, n);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (std::int64_t p = 0; p < n; ++p) acc += a(i, p) * b(p, j);
      wrong += c[static_cast<std::size_t>(i * n + j)] != acc ? 1 : 0;
    }
  }
  return wrong;
}

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
    return max_relative_difference(h_cv, h_abv, n_);
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

}  // namespace detail

}  // namespace minigpu
