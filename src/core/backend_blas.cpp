// cuBLAS behind backend_blas.hpp. One handle per process, created at first use, bound to the
// stream of Kokkos's default CUDA instance (so GEMMs and Kokkos kernels stay in one queue)
// and destroyed when Kokkos finalises, while the CUDA context still exists.
#include "core/backend_blas.hpp"

#include <limits>
#include <stdexcept>

#if defined(MINIGPU_HAVE_CUBLAS)
#include <cublas_v2.h>
#endif

namespace minigpu {

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

int blas_int(std::int64_t n) {
  if (n < 0 || n > std::numeric_limits<int>::max()) {
    throw std::overflow_error("cuBLAS gemm: dimension " + std::to_string(n) + " does not fit an int");
  }
  return static_cast<int>(n);
}

// cuBLAS is column-major; row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ over the same memory.
void gemm(const float* a, const float* b, float* c, int m, int n, int k) {
  const float one = 1, zero = 0;
  check(cublasSgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n),
        "cublasSgemm");
}
void gemm(const double* a, const double* b, double* c, int m, int n, int k) {
  const double one = 1, zero = 0;
  check(cublasDgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n),
        "cublasDgemm");
}

}  // namespace

template <class T>
void gpu_vendor_gemm(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m == 0 || n == 0) return;
  gemm(a, b, c, blas_int(m), blas_int(n), blas_int(k));
}
#else
template <class T>
void gpu_vendor_gemm(const T*, const T*, T*, std::int64_t, std::int64_t, std::int64_t) {
  throw std::logic_error("gpu_vendor_gemm: this build has no GPU BLAS");
}
#endif

template void gpu_vendor_gemm<float>(const float*, const float*, float*, std::int64_t, std::int64_t,
                                     std::int64_t);
template void gpu_vendor_gemm<double>(const double*, const double*, double*, std::int64_t, std::int64_t,
                                      std::int64_t);

}  // namespace minigpu
