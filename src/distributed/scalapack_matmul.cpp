// The ScaLAPACK engine: block-cyclic A and B from their formulas, one PxGEMM per product,
// and the checks of the DistributedMatmul interface over a block-cyclic C.
#include "distributed/scalapack_matmul.hpp"

#include "comm/collectives.hpp"
#include "comm/scalapack.hpp"
#include "core/dispatch.hpp"
#include "core/profile_region.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace minigpu {
namespace {

using HostExec = Kokkos::DefaultHostExecutionSpace;
using HostRange = Kokkos::RangePolicy<HostExec, Kokkos::IndexType<std::int64_t>>;

// The global row (or column) of local row l on process `me` of `procs`, blocks of nb dealt
// round-robin from process 0: local block l / nb is global block (l / nb)·procs + me.
KOKKOS_INLINE_FUNCTION std::int64_t global_index(std::int64_t l, std::int64_t nb, int me, int procs) {
  return (l / nb * procs + me) * nb + l % nb;
}

template <class T>
class ScalapackMatmul final : public DistributedMatmul {
 public:
  using View = Kokkos::View<T*, Kokkos::HostSpace>;

  ScalapackMatmul(const comm::Communicator& comm, std::int64_t n, kernels::ProcessGrid grid, std::int64_t nb)
      : comm_(comm), n_(n), nb_(nb), blacs_(comm, grid.rows, grid.cols) {
    rows_ = comm::numroc(n, nb, blacs_.my_row(), grid.rows);
    cols_ = comm::numroc(n, nb, blacs_.my_col(), grid.cols);
    lld_ = std::max<std::int64_t>(1, rows_);  // ScaLAPACK wants LLD >= 1 even for no rows
    desc_ = comm::describe_square(n, nb, blacs_, lld_);
    a_ = View("matmul_scaling::A_cyclic", lld_ * cols_);
    b_ = View("matmul_scaling::B_cyclic", lld_ * cols_);
    c_ = View("matmul_scaling::C_cyclic", lld_ * cols_);
    fill(a_, kernels::small_integer_matrix(kSeedA, n));
    fill(b_, kernels::small_integer_matrix(kSeedB, n));
  }

  // PxGEMM interleaves its panel broadcasts with its local products inside one call, so
  // its whole time is "compute"; "comm" stays empty, for the phases every engine reports.
  void multiply(const PhaseEnd& end_phase) override {
    {
      const ProfileRegion region("comm");
      end_phase("comm");
    }
    const ProfileRegion region("compute");
    comm::pgemm(n_, a_.data(), b_.data(), c_.data(), desc_);
    end_phase("compute");
  }

  double identity_error() const override {
    using Vec = Kokkos::View<double*, Kokkos::HostSpace>;
    Vec v("matmul_scaling::check_v", n_), cv("matmul_scaling::check_cv", n_);
    Vec bv("matmul_scaling::check_bv", n_), abv("matmul_scaling::check_abv", n_);
    kernels::fill_uniform(v, kSeedCheck, -1.0, 1.0);
    // Each rank evaluates its share of rows of B·v and A·(B·v); sums assemble the vectors.
    const auto share = kernels::block_partition(n_, comm_.size());
    const std::int64_t r0 = share.offsets[comm_.rank()], nr = share.counts[comm_.rank()];
    kernels::generated_matvec_rows(bv, kernels::small_integer_matrix(kSeedB, n_), v, r0, nr, n_);
    Kokkos::fence();
    comm::sum_in_place(bv.data(), n_, comm_);
    kernels::generated_matvec_rows(abv, kernels::small_integer_matrix(kSeedA, n_), bv, r0, nr, n_);
    Kokkos::fence();
    for_each_local([&](std::int64_t e, std::int64_t i, std::int64_t j) { cv(i) += double(c_(e)) * v(j); });
    comm::sum_in_place(cv.data(), n_, comm_);
    comm::sum_in_place(abv.data(), n_, comm_);
    return max_relative_difference(cv, abv, n_);
  }

  std::vector<double> gather_c() const override {
    std::vector<double> mine;
    std::vector<std::int64_t> rows, cols;
    for_each_local([&](std::int64_t e, std::int64_t i, std::int64_t j) {
      mine.push_back(static_cast<double>(c_(e)));
      rows.push_back(i);
      cols.push_back(j);
    });
    const auto values = comm::gather_to_root(mine, 0, comm_);
    const auto row_ids = comm::gather_to_root(rows, 0, comm_), col_ids = comm::gather_to_root(cols, 0, comm_);
    std::vector<double> c(comm_.rank() == 0 ? static_cast<std::size_t>(n_ * n_) : 0);
    for (std::size_t r = 0; r < values.size(); ++r) {
      for (std::size_t e = 0; e < values[r].size(); ++e)
        c[static_cast<std::size_t>(row_ids[r][e] * n_ + col_ids[r][e])] = values[r][e];
    }
    return c;
  }

  // Public only because CUDA rejects an extended lambda in a private member function.
  void fill(const View& out, kernels::SmallIntegerMatrix gen) const {
    const std::int64_t lld = lld_, rows = rows_, nb = nb_;
    const int my_row = blacs_.my_row(), pr = blacs_.rows(), my_col = blacs_.my_col(), pc = blacs_.cols();
    Kokkos::parallel_for(
        "fill::block_cyclic", HostRange(0, rows * cols_), KOKKOS_LAMBDA(const std::int64_t e) {
          const std::int64_t li = e % rows, lj = e / rows;
          out(li + lj * lld) =
              static_cast<T>(gen(global_index(li, nb, my_row, pr), global_index(lj, nb, my_col, pc)));
        });
    Kokkos::fence();
  }

 private:
  // f(local offset, global row, global column) for every element this rank stores.
  template <class F>
  void for_each_local(F&& f) const {
    for (std::int64_t lj = 0; lj < cols_; ++lj) {
      const std::int64_t j = global_index(lj, nb_, blacs_.my_col(), blacs_.cols());
      for (std::int64_t li = 0; li < rows_; ++li)
        f(li + lj * lld_, global_index(li, nb_, blacs_.my_row(), blacs_.rows()), j);
    }
  }

  comm::Communicator comm_;
  std::int64_t n_, nb_;
  comm::BlacsGrid blacs_;
  std::int64_t rows_ = 0, cols_ = 0, lld_ = 1;
  comm::MatrixDescriptor desc_{};
  View a_, b_, c_;
};

}  // namespace

bool scalapack_available() { return comm::have_scalapack(); }

std::unique_ptr<DistributedMatmul> make_scalapack_matmul(DType dtype, Device device,
                                                         const comm::Communicator& comm, std::int64_t n,
                                                         kernels::ProcessGrid grid, std::int64_t nb) {
  if (!uses_host_memory(device))
    throw std::invalid_argument("scalapack runs in host memory only, not on " + describe(device));
  return with_dtype(dtype, [&](auto type) -> std::unique_ptr<DistributedMatmul> {
    return std::make_unique<ScalapackMatmul<typename decltype(type)::type>>(comm, n, grid, nb);
  });
}

std::uint64_t scalapack_bytes_per_rank(std::int64_t n, kernels::ProcessGrid grid, std::int64_t nb,
                                       std::uint64_t elem) {
  const auto mr = static_cast<std::uint64_t>(std::max<std::int64_t>(1, comm::numroc(n, nb, 0, grid.rows)));
  const auto nc = static_cast<std::uint64_t>(comm::numroc(n, nb, 0, grid.cols));
  const auto panels = (mr + nc) * static_cast<std::uint64_t>(nb);
  return (3 * mr * nc + panels) * elem + 4 * static_cast<std::uint64_t>(n) * sizeof(double);
}

}  // namespace minigpu
