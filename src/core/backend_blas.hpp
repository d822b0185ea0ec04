// The GPU runtime's own BLAS (cuBLAS on CUDA builds): the one place miniGPU calls it.
// Part of the backend layer, like backend.hpp: nothing outside core/backend* names a runtime.
#pragma once

#include "core/backend.hpp"

#include <cstdint>

namespace minigpu {

/// True when this build can multiply matrices in GPU memory with the runtime's BLAS.
#if defined(MINIGPU_HAVE_CUBLAS)
inline constexpr bool kHasGpuVendorGemm = true;
#else
inline constexpr bool kHasGpuVendorGemm = false;
#endif

/// C = A·B for row-major A (m×k), B (k×n) and C (m×n), contiguous in GPU memory, in
/// full precision (no reduced-precision tensor-core modes). Queued on the default GPU
/// execution space instance like a Kokkos kernel: no host sync. Throws std::logic_error on
/// a build without a GPU BLAS and std::runtime_error when the library reports an error.
template <class T>
void gpu_vendor_gemm(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k);

extern template void gpu_vendor_gemm<float>(const float*, const float*, float*, std::int64_t, std::int64_t,
                                            std::int64_t);
extern template void gpu_vendor_gemm<double>(const double*, const double*, double*, std::int64_t,
                                             std::int64_t, std::int64_t);

}  // namespace minigpu
