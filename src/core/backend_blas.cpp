// CBLAS and cuBLAS behind backend_blas.hpp. cuBLAS: one handle per process, created at first
// use, bound to the stream of Kokkos's default CUDA instance (so GEMMs and Kokkos kernels
// stay in one queue) and destroyed when Kokkos finalises, while the CUDA context still exists.
#include "core/backend_blas.hpp"

#include <cblas.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#if defined(MINIGPU_HAVE_CUBLAS)
#include <cublas_v2.h>
#endif

namespace minigpu {
namespace {

// Both BLAS interfaces count in int: a dimension that does not fit is an error, not a wrap.
int blas_int(std::int64_t n, const char* library) {
  if (n < 0 || n > std::numeric_limits<int>::max()) {
    throw std::overflow_error(std::string(library) + " gemm: dimension " + std::to_string(n) +
                              " does not fit an int");
  }
  return static_cast<int>(n);
}

struct BlasDims {
  int m, n, k, lda, ldb, ldc;
};

// BLAS checks leading dimensions even where they address nothing (lda when k = 0).
BlasDims blas_dims(const GemmDims& d, const char* library) {
  return {blas_int(d.m, library),
          blas_int(d.n, library),
          blas_int(d.k, library),
          blas_int(std::max<std::int64_t>(d.lda, 1), library),
          blas_int(std::max<std::int64_t>(d.ldb, 1), library),
          blas_int(std::max<std::int64_t>(d.ldc, 1), library)};
}

void cblas_gemm(const float* a, const float* b, float* c, const BlasDims& d, float alpha, float beta) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, d.n, d.m, d.k, alpha, b, d.ldb, a, d.lda, beta, c,
              d.ldc);
}
void cblas_gemm(const double* a, const double* b, double* c, const BlasDims& d, double alpha, double beta) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, d.n, d.m, d.k, alpha, b, d.ldb, a, d.lda, beta, c,
              d.ldc);
}

}  // namespace

template <class T>
void host_vendor_gemm(const T* a, const T* b, T* c, const GemmDims& d, bool accumulate, const T* alpha) {
  if (d.m == 0 || d.n == 0) return;
  cblas_gemm(a, b, c, blas_dims(d, "CBLAS"), alpha ? *alpha : T(1), accumulate ? T(1) : T(0));
}

namespace {

constexpr const char* kIsaNames[] = {"SSE", "AVX", "AVX2", "AVX-512"};
// OpenBLAS's kernel set for each of those, the one to ask for with OPENBLAS_CORETYPE.
constexpr const char* kCoreFor[] = {"Prescott", "Sandybridge", "Haswell", "SkylakeX"};

// The widest x86 vector ISA this CPU runs, as an index into kIsaNames, whatever the build
// targets; -1 off x86.
int cpu_isa_level() {
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512f")) return 3;
  if (__builtin_cpu_supports("avx2")) return 2;
  if (__builtin_cpu_supports("avx")) return 1;
  return 0;
#else
  return -1;
#endif
}

// The ISA an OpenBLAS x86 kernel set (openblas_get_corename()) is written for; -1 if unknown.
int openblas_core_isa_level(std::string core) {
  for (char& c : core) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* name : {"skylakex", "cooperlake", "sapphirerapids"})
    if (core == name) return 3;
  for (const char* name : {"haswell", "zen", "excavator"})
    if (core == name) return 2;
  for (const char* name : {"sandybridge", "bulldozer", "piledriver", "steamroller"})
    if (core == name) return 1;
  for (const char* name :
       {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "barcelona", "opteron",
        "opteron_sse3", "katmai", "coppermine", "northwood", "banias", "bobcat", "nano"})
    if (core == name) return 0;
  return -1;
}

[[maybe_unused]] std::string openblas_kernel_warning(const std::string& library, const std::string& core) {
  const int cpu = cpu_isa_level(), blas = openblas_core_isa_level(core);
  if (cpu < 0 || blas < 0 || blas >= cpu) return "";
  const char* asked = std::getenv("OPENBLAS_CORETYPE");
  const std::string why = asked && *asked ? "as OPENBLAS_CORETYPE=" + std::string(asked) + " asks"
                                          : "its CPU table does not know this model";
  return library + " runs its " + core + " (" + kIsaNames[blas] + ") kernels on this " + kIsaNames[cpu] +
         " CPU (" + why + "), so BLAS rows undersell the machine; OPENBLAS_CORETYPE=" + kCoreFor[cpu] +
         " selects its " + kIsaNames[cpu] + " kernels";
}

}  // namespace

HostBlasInfo host_blas_info() {
  HostBlasInfo info;
#if defined(OPENBLAS_VERSION)
  info.library = OPENBLAS_VERSION;
  while (!info.library.empty() && info.library.front() == ' ') info.library.erase(0, 1);
  while (!info.library.empty() && info.library.back() == ' ') info.library.pop_back();
  info.config = openblas_get_config();
  info.core = openblas_get_corename();
  info.threads = openblas_get_num_threads();
  info.kernel_warning = openblas_kernel_warning(info.library, info.core);
#else
  info.library = "CBLAS";
#endif
  return info;
}

void set_host_blas_threads(int threads) {
#if defined(OPENBLAS_VERSION)
  openblas_set_num_threads(threads);
#else
  (void)threads;
#endif
}

#if defined(MINIGPU_HAVE_CUBLAS)
namespace {

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + ": " + cublasGetStatusString(status));
  }
}

cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t created = nullptr;
    check(cublasCreate(&created), "cublasCreate");
    Kokkos::push_finalize_hook([created] { cublasDestroy(created); });
    return created;
  }();
  // The default instance's stream, looked up each call: cheap, and right after a re-init.
  check(cublasSetStream(h, GpuExecSpace().cuda_stream()), "cublasSetStream");
  return h;
}

// α and β as GPU-resident scalars: with α computed by an earlier kernel, cuBLAS must read
// both from device memory (CUBLAS_POINTER_MODE_DEVICE), so 0 and 1 live there too.
template <class T>
const T* device_zero_one() {
  static const T* constants = [] {
    Kokkos::View<T*, GpuMemSpace> view("minigpu::cublas_zero_one", 2);
    Kokkos::deep_copy(Kokkos::subview(view, 1), T(1));
    auto* keep = new Kokkos::View<T*, GpuMemSpace>(view);
    Kokkos::push_finalize_hook([keep] { delete keep; });
    return keep->data();
  }();
  return constants;
}

void cublas_gemm(cublasHandle_t h, const float* a, const float* b, float* c, const BlasDims& d,
                 const float* alpha, const float* beta) {
  check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, d.n, d.m, d.k, alpha, b, d.ldb, a, d.lda, beta, c, d.ldc),
        "cublasSgemm");
}
void cublas_gemm(cublasHandle_t h, const double* a, const double* b, double* c, const BlasDims& d,
                 const double* alpha, const double* beta) {
  check(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, d.n, d.m, d.k, alpha, b, d.ldb, a, d.lda, beta, c, d.ldc),
        "cublasDgemm");
}

}  // namespace

template <class T>
void gpu_vendor_gemm(const T* a, const T* b, T* c, const GemmDims& d, bool accumulate, const T* alpha) {
  if (d.m == 0 || d.n == 0) return;
  const BlasDims dims = blas_dims(d, "cuBLAS");
  const cublasHandle_t h = handle();
  if (!alpha) {
    const T one = 1, beta = accumulate ? T(1) : T(0);
    check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    cublas_gemm(h, a, b, c, dims, &one, &beta);
    return;
  }
  check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
  cublas_gemm(h, a, b, c, dims, alpha, device_zero_one<T>() + (accumulate ? 1 : 0));
  check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
}

void gpu_mixed_gemm(DType storage, bool tf32, const void* a, const void* b, void* c, const GemmDims& d) {
  const bool float_storage = storage == DType::f32;
  if (tf32 != float_storage || !(float_storage || storage == DType::bf16 || storage == DType::f16))
    throw std::logic_error("gpu_mixed_gemm: " + to_string(storage) + (tf32 ? " through TF32" : "") +
                           " is not a cuBLAS mixed-precision GEMM");
  if (d.m == 0 || d.n == 0) return;
  const BlasDims x = blas_dims(d, "cuBLAS");
  const cudaDataType type = storage == DType::bf16  ? CUDA_R_16BF
                            : storage == DType::f16 ? CUDA_R_16F
                                                    : CUDA_R_32F;
  const cublasHandle_t h = handle();
  const float one = 1, zero = 0;  // CUBLAS_COMPUTE_32F takes float α and β
  check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
  check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, x.n, x.m, x.k, &one, b, type, x.ldb, a, type, x.lda, &zero,
                     c, type, x.ldc, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}
#else
template <class T>
void gpu_vendor_gemm(const T*, const T*, T*, const GemmDims&, bool, const T*) {
  throw std::logic_error("gpu_vendor_gemm: this build has no GPU BLAS");
}

void gpu_mixed_gemm(DType, bool, const void*, const void*, void*, const GemmDims&) {
  throw std::logic_error("gpu_mixed_gemm: this build has no GPU BLAS");
}
#endif

// T names a type in a declaration, where parentheses cannot go.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define MINIGPU_DEFINE_VENDOR_GEMM(fn, T) \
  template void fn<T>(const T*, const T*, T*, const GemmDims&, bool, const T*);
// NOLINTEND(bugprone-macro-parentheses)
MINIGPU_DEFINE_VENDOR_GEMM(host_vendor_gemm, float)
MINIGPU_DEFINE_VENDOR_GEMM(host_vendor_gemm, double)
MINIGPU_DEFINE_VENDOR_GEMM(gpu_vendor_gemm, float)
MINIGPU_DEFINE_VENDOR_GEMM(gpu_vendor_gemm, double)
#undef MINIGPU_DEFINE_VENDOR_GEMM

}  // namespace minigpu
