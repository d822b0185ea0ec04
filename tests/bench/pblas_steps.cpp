// What ScaLAPACK's PxGEMM does inside, seen from outside: the k of each local ?gemm_ call it
// makes and the time in them, in MPI point-to-point calls (BLACS's broadcasts) and in the rest
// (PBLAS's packing and copies). matmul_scaling's model of the `scalapack` rows
// (perfmodel::pblas_k_steps) says one local product where no operand spans two processes and
// steps of 32 otherwise; ctest `pblas_steps` holds the real library to that.
//
// The executable exports ?gemm_ and the MPI calls (ENABLE_EXPORTS), so the dynamic linker binds
// libscalapack's references to these wrappers, which time the call and pass it on (RTLD_NEXT;
// MPI's through its PMPI_ names).
//
//   mpiexec -n P pblas_steps N NB PROWS PCOLS REPS [float32|float64]
// prints per rank and timed repetition:
//   rank R rep I: pgemm S s, local gemm G s (C calls), mpi M s (D calls), rest X s; k: 32 32 ...
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace {
double now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
struct Tally {
  bool on = false;
  double gemm_s = 0, mpi_s = 0;
  long mpi_calls = 0;
  std::vector<int> ks;
} tally;

template <class T>
using Gemm = void (*)(const char*, const char*, const int*, const int*, const int*, const T*, const T*,
                      const int*, const T*, const int*, const T*, T*, const int*);

template <class T>
void timed_gemm(const char* name, const char* ta, const char* tb, const int* m, const int* n, const int* k,
                const T* al, const T* a, const int* lda, const T* b, const int* ldb, const T* be, T* c,
                const int* ldc) {
  static const auto real = reinterpret_cast<Gemm<T>>(dlsym(RTLD_NEXT, name));
  if (real == nullptr) {
    std::fprintf(stderr, "pblas_steps: no %s after this executable\n", name);
    std::abort();
  }
  const double t = now();
  real(ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
  if (tally.on) {
    tally.gemm_s += now() - t;
    tally.ks.push_back(*k);
  }
}

// Times one MPI call made while a PxGEMM is being timed.
template <class Call>
int timed_mpi(Call call) {
  const double t = now();
  const int rv = call();
  if (tally.on) {
    tally.mpi_s += now() - t;
    ++tally.mpi_calls;
  }
  return rv;
}
}  // namespace

extern "C" {
void sgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* al,
            const float* a, const int* lda, const float* b, const int* ldb, const float* be, float* c,
            const int* ldc) {
  timed_gemm<float>("sgemm_", ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}
void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* al,
            const double* a, const int* lda, const double* b, const int* ldb, const double* be, double* c,
            const int* ldc) {
  timed_gemm<double>("dgemm_", ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}
int MPI_Send(const void* b, int n, MPI_Datatype d, int to, int tag, MPI_Comm c) {
  return timed_mpi([&] { return PMPI_Send(b, n, d, to, tag, c); });
}
int MPI_Recv(void* b, int n, MPI_Datatype d, int from, int tag, MPI_Comm c, MPI_Status* s) {
  return timed_mpi([&] { return PMPI_Recv(b, n, d, from, tag, c, s); });
}
int MPI_Isend(const void* b, int n, MPI_Datatype d, int to, int tag, MPI_Comm c, MPI_Request* r) {
  return timed_mpi([&] { return PMPI_Isend(b, n, d, to, tag, c, r); });
}
int MPI_Irecv(void* b, int n, MPI_Datatype d, int from, int tag, MPI_Comm c, MPI_Request* r) {
  return timed_mpi([&] { return PMPI_Irecv(b, n, d, from, tag, c, r); });
}
int MPI_Wait(MPI_Request* r, MPI_Status* s) {
  return timed_mpi([&] { return PMPI_Wait(r, s); });
}
int MPI_Waitall(int n, MPI_Request* r, MPI_Status* s) {
  return timed_mpi([&] { return PMPI_Waitall(n, r, s); });
}
int MPI_Bcast(void* b, int n, MPI_Datatype d, int root, MPI_Comm c) {
  return timed_mpi([&] { return PMPI_Bcast(b, n, d, root, c); });
}

void Cblacs_get(int, int, int*);
void Cblacs_gridinit(int*, const char*, int, int);
void Cblacs_gridinfo(int, int*, int*, int*, int*);
int numroc_(const int*, const int*, const int*, const int*, const int*);
void descinit_(int*, const int*, const int*, const int*, const int*, const int*, const int*, const int*,
               const int*, int*);
void psgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
             const int*, const int*, const int*, const float*, const int*, const int*, const int*,
             const float*, float*, const int*, const int*, const int*);
void pdgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
             const int*, const int*, const int*, const double*, const int*, const int*, const int*,
             const double*, double*, const int*, const int*, const int*);
}

namespace {
template <class T>
void pgemm(const int n, const T* a, const T* b, T* c, const int* desc) {
  const int one = 1;
  const T alpha = 1, beta = 0;
  if constexpr (sizeof(T) == 4) {
    psgemm_("N", "N", &n, &n, &n, &alpha, a, &one, &one, desc, b, &one, &one, desc, &beta, c, &one, &one,
            desc);
  } else {
    pdgemm_("N", "N", &n, &n, &n, &alpha, a, &one, &one, desc, b, &one, &one, desc, &beta, c, &one, &one,
            desc);
  }
}

template <class T>
void run(int me, int n, int nb, int rows, int cols, int reps) {
  int ctx = 0, r = 0, c = 0, my_row = -1, my_col = -1;
  Cblacs_get(0, 0, &ctx);
  Cblacs_gridinit(&ctx, "Row", rows, cols);
  Cblacs_gridinfo(ctx, &r, &c, &my_row, &my_col);
  if (my_row < 0) return;  // ranks beyond the grid idle
  const int zero = 0;
  const int local_rows = numroc_(&n, &nb, &my_row, &zero, &rows);
  const int local_cols = numroc_(&n, &nb, &my_col, &zero, &cols);
  const int lld = local_rows > 1 ? local_rows : 1;
  int desc[9], info = 0;
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctx, &lld, &info);
  const std::size_t count = static_cast<std::size_t>(lld) * static_cast<std::size_t>(local_cols);
  std::vector<T> a(count), b(count), cm(count);
  for (std::size_t i = 0; i < count; ++i) {
    a[i] = static_cast<T>(i % 7) / 8;
    b[i] = static_cast<T>(i % 5) / 8;
  }
  pgemm<T>(n, a.data(), b.data(), cm.data(), desc);  // warm-up, untimed
  for (int rep = 0; rep < reps; ++rep) {
    tally = Tally{};
    PMPI_Barrier(MPI_COMM_WORLD);
    tally.on = true;
    const double t = now();
    pgemm<T>(n, a.data(), b.data(), cm.data(), desc);
    const double total = now() - t;
    tally.on = false;
    std::string ks;
    for (const int k : tally.ks) ks += " " + std::to_string(k);
    std::printf(
        "rank %d rep %d: pgemm %.6f s, local gemm %.6f s (%zu calls), mpi %.6f s (%ld calls), rest %.6f s; "
        "k:%s\n",
        me, rep, total, tally.gemm_s, tally.ks.size(), tally.mpi_s, tally.mpi_calls,
        total - tally.gemm_s - tally.mpi_s, ks.c_str());
  }
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string dtype = argc > 6 ? argv[6] : "float32";
  if (argc < 6 || (dtype != "float32" && dtype != "float64") ||
      std::atoi(argv[3]) * std::atoi(argv[4]) > size) {
    if (me == 0)
      std::fprintf(
          stderr,
          "usage: mpiexec -n P pblas_steps N NB PROWS PCOLS REPS [float32|float64] (PROWS*PCOLS <= P)\n");
    MPI_Finalize();
    return 2;
  }
  const int n = std::atoi(argv[1]), nb = std::atoi(argv[2]), rows = std::atoi(argv[3]),
            cols = std::atoi(argv[4]), reps = std::atoi(argv[5]);
  if (dtype == "float32") {
    run<float>(me, n, nb, rows, cols, reps);
  } else {
    run<double>(me, n, nb, rows, cols, reps);
  }
  MPI_Finalize();
  return 0;
}
