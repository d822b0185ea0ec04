// ScaLAPACK and BLACS calls. Debian's libscalapack-openmpi-dev installs no C header, so the
// prototypes are declared here from the reference sources (BLACS's C interface, PBLAS's C
// wrappers, which take characters as plain pointers with no hidden lengths).
#include "comm/scalapack.hpp"

#include <stdexcept>
#include <string>

#if defined(MINIGPU_HAVE_SCALAPACK)
extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
void psgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const float* alpha, const float* a, const int* ia, const int* ja, const int* desca,
             const float* b, const int* ib, const int* jb, const int* descb, const float* beta, float* c,
             const int* ic, const int* jc, const int* descc);
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta, double* c,
             const int* ic, const int* jc, const int* descc);
}
#endif

namespace minigpu::comm {
#if defined(MINIGPU_HAVE_SCALAPACK)
namespace {

// ScaLAPACK's integers are Fortran INTEGERs: n² itself never reaches them, only n and the
// local extents, which kMaxN keeps far below INT_MAX.
int to_int(std::int64_t v) {
  if (v < 0 || v > 2147483647) throw std::out_of_range("ScaLAPACK index " + std::to_string(v));
  return static_cast<int>(v);
}

template <class T, class F>
void gemm_nn(F routine, std::int64_t n, const T* a, const T* b, T* c, const MatrixDescriptor& desc) {
  const int m = to_int(n), one = 1;
  const T alpha = 1, beta = 0;
  routine("N", "N", &m, &m, &m, &alpha, a, &one, &one, desc.data(), b, &one, &one, desc.data(), &beta, c,
          &one, &one, desc.data());
}

}  // namespace

bool have_scalapack() { return true; }

BlacsGrid::BlacsGrid(const Communicator& comm, int rows, int cols) : rows_(rows), cols_(cols) {
  if (comm.size() != rows * cols)
    throw std::invalid_argument("BLACS grid " + std::to_string(rows) + "x" + std::to_string(cols) + " on " +
                                std::to_string(comm.size()) + " ranks");
  int me = 0, all = 0;
  Cblacs_pinfo(&me, &all);  // BLACS's own set-up; MPI is already running, so it only records it
  system_handle_ = Csys2blacs_handle(comm.raw());
  context_ = system_handle_;
  Cblacs_gridinit(&context_, "Row", rows, cols);
  int r = 0, c = 0;
  Cblacs_gridinfo(context_, &r, &c, &my_row_, &my_col_);
  if (r != rows || c != cols || my_row_ < 0) throw std::runtime_error("Cblacs_gridinit gave no grid");
}

BlacsGrid::~BlacsGrid() {
  if (context_ >= 0) Cblacs_gridexit(context_);
  if (system_handle_ >= 0) Cfree_blacs_system_handle(system_handle_);
}

std::int64_t numroc(std::int64_t n, std::int64_t nb, int iproc, int procs) {
  const int n_ = to_int(n), nb_ = to_int(nb), src = 0;
  return numroc_(&n_, &nb_, &iproc, &src, &procs);
}

MatrixDescriptor describe_square(std::int64_t n, std::int64_t nb, const BlacsGrid& grid, std::int64_t lld) {
  MatrixDescriptor desc{};
  const int n_ = to_int(n), nb_ = to_int(nb), src = 0, ctxt = grid.context(), lld_ = to_int(lld);
  int info = 0;
  descinit_(desc.data(), &n_, &n_, &nb_, &nb_, &src, &src, &ctxt, &lld_, &info);
  if (info != 0) throw std::invalid_argument("DESCINIT rejected argument " + std::to_string(-info));
  return desc;
}

void pgemm(std::int64_t n, const float* a, const float* b, float* c, const MatrixDescriptor& desc) {
  gemm_nn(psgemm_, n, a, b, c, desc);
}
void pgemm(std::int64_t n, const double* a, const double* b, double* c, const MatrixDescriptor& desc) {
  gemm_nn(pdgemm_, n, a, b, c, desc);
}
#else
namespace {
[[noreturn]] void missing() {
  throw std::logic_error("this build has no ScaLAPACK (Debian: apt-get install libscalapack-openmpi-dev)");
}
}  // namespace

bool have_scalapack() { return false; }
BlacsGrid::BlacsGrid(const Communicator&, int, int) { missing(); }
BlacsGrid::~BlacsGrid() = default;
std::int64_t numroc(std::int64_t, std::int64_t, int, int) { missing(); }
MatrixDescriptor describe_square(std::int64_t, std::int64_t, const BlacsGrid&, std::int64_t) { missing(); }
void pgemm(std::int64_t, const float*, const float*, float*, const MatrixDescriptor&) { missing(); }
void pgemm(std::int64_t, const double*, const double*, double*, const MatrixDescriptor&) { missing(); }
#endif

}  // namespace minigpu::comm
