// ScaLAPACK's distributed GEMM and the BLACS grid it runs on, behind the comm layer: BLACS
// contexts come from MPI communicators, which only comm/ may name. Builds without ScaLAPACK
// keep these declarations; their calls then throw std::logic_error.
#pragma once

#include "comm/communicator.hpp"

#include <array>
#include <cstdint>

namespace minigpu::comm {

/// True when this build links ScaLAPACK (MINIGPU_HAVE_SCALAPACK).
bool have_scalapack();

/// A BLACS process grid over every rank of a communicator, row-major like SUMMA's (rank r is
/// process (r / cols, r % cols)); collective to create and to destroy. Not copyable.
class BlacsGrid {
 public:
  /// `rows · cols` must be the size of `comm`.
  BlacsGrid(const Communicator& comm, int rows, int cols);
  ~BlacsGrid();
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;

  int context() const { return context_; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int my_row() const { return my_row_; }
  int my_col() const { return my_col_; }

 private:
  int system_handle_ = -1, context_ = -1;
  int rows_ = 1, cols_ = 1, my_row_ = 0, my_col_ = 0;
};

/// ScaLAPACK's array descriptor (DESC_ in the Users' Guide): nine integers.
using MatrixDescriptor = std::array<int, 9>;

/// NUMROC: how many of n rows (or columns), dealt in blocks of nb round-robin over `procs`
/// processes starting at process 0, process `iproc` stores.
std::int64_t numroc(std::int64_t n, std::int64_t nb, int iproc, int procs);

/// DESCINIT for an n×n matrix in nb×nb blocks on `grid`, first block on process (0, 0),
/// stored column-major with leading dimension `lld` (>= 1).
MatrixDescriptor describe_square(std::int64_t n, std::int64_t nb, const BlacsGrid& grid, std::int64_t lld);

/// C = A·B over the whole n×n matrices (PSGEMM / PDGEMM, no transposes): collective over the grid.
void pgemm(std::int64_t n, const float* a, const float* b, float* c, const MatrixDescriptor& desc);
void pgemm(std::int64_t n, const double* a, const double* b, double* c, const MatrixDescriptor& desc);

}  // namespace minigpu::comm
