// The vendor BLAS: CBLAS (OpenBLAS on Debian) for host memory, the GPU runtime's BLAS
// (cuBLAS on CUDA builds) for GPU memory. The one place miniGPU calls either; part of the
// backend layer, like backend.hpp: nothing outside core/backend* names a BLAS library.
#pragma once

#include "core/backend.hpp"
#include "core/gemm_dims.hpp"
#include "core/shape.hpp"

#include <string>

namespace minigpu {

/// True when this build can multiply matrices in GPU memory with the runtime's BLAS, and
/// that BLAS's name for reports.
#if defined(MINIGPU_HAVE_CUBLAS)
inline constexpr bool kHasGpuVendorGemm = true;
inline constexpr const char* kGpuBlasName = "cuBLAS";
#else
inline constexpr bool kHasGpuVendorGemm = false;
inline constexpr const char* kGpuBlasName = "none";
#endif

/// Why GPU memory has no runtime BLAS in this build, for refusals; "" where it has one.
#if defined(MINIGPU_HAVE_CUBLAS)
inline constexpr const char* kGpuBlasMissing = "";
#elif defined(KOKKOS_ENABLE_HIP)
inline constexpr const char* kGpuBlasMissing = "HIP builds call no rocBLAS, which Debian 12 does not package";
#elif defined(KOKKOS_ENABLE_SYCL)
inline constexpr const char* kGpuBlasMissing = "SYCL builds call no oneMKL";
#else
inline constexpr const char* kGpuBlasMissing = "this build has no GPU backend";
#endif

/// C = α·A·B, or C += α·A·B when `accumulate`, for row-major matrices in host memory (see
/// GemmDims), through CBLAS on the calling thread. α is 1, or *alpha where `alpha` points
/// into the memory C lives in (a value an earlier kernel computed: no host round trip).
/// BLAS is column-major, and row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ over the same
/// memory: nothing is transposed or copied.
template <class T>
void host_vendor_gemm(const T* a, const T* b, T* c, const GemmDims& d, bool accumulate, const T* alpha);

/// The same for GPU memory, in full precision (no reduced-precision tensor-core modes),
/// queued on the default GPU execution space instance like a Kokkos kernel: no host sync.
/// Throws std::logic_error on a build without a GPU BLAS and std::runtime_error when the
/// library reports an error.
template <class T>
void gpu_vendor_gemm(const T* a, const T* b, T* c, const GemmDims& d, bool accumulate, const T* alpha);

#define MINIGPU_DECLARE_VENDOR_GEMM(fn, T) \
  extern template void fn<T>(const T*, const T*, T*, const GemmDims&, bool, const T*);
MINIGPU_DECLARE_VENDOR_GEMM(host_vendor_gemm, float)
MINIGPU_DECLARE_VENDOR_GEMM(host_vendor_gemm, double)
MINIGPU_DECLARE_VENDOR_GEMM(gpu_vendor_gemm, float)
MINIGPU_DECLARE_VENDOR_GEMM(gpu_vendor_gemm, double)
#undef MINIGPU_DECLARE_VENDOR_GEMM

/// C = A·B for row-major matrices in GPU memory on the tensor cores, summed in float
/// (cublasGemmEx with CUBLAS_COMPUTE_32F), in one of the precisions GPUs are sold on:
///   bf16, f16      A, B and C stored in the 16-bit type (CUDA_R_16BF, CUDA_R_16F);
///   f32 with tf32  A, B and C in float, the products' inputs cut to TF32's 10 mantissa bits
///                  (CUBLAS_COMPUTE_32F_FAST_TF32: PyTorch's allow_tf32).
/// Queued like gpu_vendor_gemm. Throws std::logic_error on a build without a GPU BLAS or for
/// any other storage, std::runtime_error when the library reports an error.
void gpu_mixed_gemm(DType storage, bool tf32, const void* a, const void* b, void* c, const GemmDims& d);

/// True where host_mixed_gemm runs: this build links oneDNN and the CPU has AVX512_BF16 (without
/// it oneDNN would emulate bfloat16 products at a fraction of float's rate).
bool host_has_bf16_gemm();
/// "oneDNN 2.6.3", or "" in a build without oneDNN: what serves host_mixed_gemm, for records.
std::string host_bf16_gemm_library();
/// C = A·B for row-major bfloat16 matrices in host memory (see GemmDims), summed in float and C
/// rounded once: oneDNN's matmul on the calling thread's OpenMP team, returning when done.
/// Throws std::logic_error for any other storage or in a build without oneDNN.
void host_mixed_gemm(DType storage, const void* a, const void* b, void* c, const GemmDims& d);

/// What serves host_vendor_gemm, for run records: figures from two BLAS never compare.
struct HostBlasInfo {
  std::string library;  ///< "OpenBLAS 0.3.21", or "CBLAS" when the library does not say
  std::string config;   ///< openblas_get_config(): build options and threading model
  std::string core;     ///< openblas_get_corename(): the kernel set chosen for this CPU
  int threads = 1;      ///< threads one BLAS call may use
  /// "" or why this BLAS's figures undersell the CPU: OpenBLAS running kernels for a narrower
  /// vector ISA than the CPU has (a CPU model its table does not know falls back to Prescott's
  /// SSE3 kernels; OPENBLAS_CORETYPE may ask for an older set), with the setting that fixes it.
  std::string kernel_warning;
};
HostBlasInfo host_blas_info();

/// Caps the threads one host BLAS call uses (OpenBLAS; a no-op for a BLAS with no such call).
void set_host_blas_threads(int threads);

}  // namespace minigpu
