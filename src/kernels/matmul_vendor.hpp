// The vendor matrix multiply: the library a user would call instead of writing a kernel.
//   - host-accessible memory: CBLAS (OpenBLAS on Debian), which every build has;
//   - GPU memory: the GPU runtime's BLAS (cuBLAS on CUDA builds), through core/backend_blas;
//   - any other space: KokkosKernels' gemm, where the build found one built against this
//     very Kokkos that instantiates gemm for any type (not ETI-only).
// has_vendor_gemm<MemorySpace>() says at compile time whether a space has one. Below float
// (matmul_vendor_mixed): cuBLAS on GPU memory (16-bit storage, float32 through TF32), and oneDNN
// on host memory for bfloat16 where the CPU has AVX512_BF16. vendor_serves and vendor_refusal
// say, for inputs, which precisions a device's vendor GEMM serves: a product no listed device
// runs is refused, never skipped.
#pragma once

#include "core/backend.hpp"
#include "core/backend_blas.hpp"
#include "core/device.hpp"
#include "core/gemm_dims.hpp"
#include "core/low_precision.hpp"
#include "core/profile_region.hpp"

#if defined(MINIGPU_HAVE_KOKKOSKERNELS)
#include <KokkosBlas3_gemm.hpp>
#if !defined(KOKKOSKERNELS_ETI_ONLY)
#define MINIGPU_HAVE_KOKKOSKERNELS_GEMM 1
#endif
#endif

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace minigpu::kernels {

template <class Mem>
constexpr bool host_blas_serves() {
  return Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace, Mem>::accessible;
}

/// True when gemm_vendor can run on Views in memory space Mem.
template <class Mem>
constexpr bool has_vendor_gemm() {
#if defined(MINIGPU_HAVE_KOKKOSKERNELS_GEMM)
  return true;
#else
  return host_blas_serves<Mem>() || (kHasGpuVendorGemm && std::is_same_v<Mem, GpuMemSpace>);
#endif
}

/// True when gemm_vendor can run on the memory of device `d`.
inline bool has_vendor_gemm(Device d) {
  return uses_host_memory(d) ? has_vendor_gemm<HostMemSpace>() : has_vendor_gemm<GpuMemSpace>();
}

/// True when matmul_vendor_mixed runs on device d's memory: cuBLAS's tensor-core GEMMs, on a
/// real GPU of a CUDA build (no host BLAS here has a 16-bit GEMM linked).
inline bool has_mixed_vendor_gemm(Device d) { return kHasGpuVendorGemm && !uses_host_memory(d); }

/// True when a vendor GEMM multiplies `dtype` on device d's memory.
inline bool has_vendor_gemm(Device d, DType dtype) {
  if (!is_low_precision(dtype)) return has_vendor_gemm(d);
  return uses_host_memory(d) ? dtype == DType::bf16 && host_has_bf16_gemm() : has_mixed_vendor_gemm(d);
}

/// "" when gemm_vendor runs on device d's memory, else the one-line reason 'vendor' is refused
/// there, pointing to `instead` (GPU memory of a HIP build, say, which has no GPU BLAS:
/// `kernel: auto` must fall back to native exactly where this is not empty).
inline std::string vendor_gemm_refusal(Device d, const std::string& instead) {
  if (has_vendor_gemm(d)) return "";
  return "'vendor' has no GEMM for " + describe(d) + " memory in this build (" +
         (uses_host_memory(d) ? "no CBLAS" : kGpuBlasMissing) +
         ", and no KokkosKernels built against this Kokkos was found): use '" + instead + "'";
}

/// True when a vendor GEMM multiplies `dtype` on device d's memory, through TF32 when `tf32`
/// (float32 only).
inline bool vendor_serves(Device d, DType dtype, bool tf32) {
  return tf32 ? dtype == DType::f32 && has_mixed_vendor_gemm(d) : has_vendor_gemm(d, dtype);
}

/// "" when, for each of `dtypes`, some device of `devices` has a vendor GEMM (and, with
/// `tf32`, a TF32 one for float32), else the one-line reason an input asking for `vendor`
/// (`vendor_tf32` when `tf32`) is refused, ending with what to ask `instead`: a product no
/// listed device runs is never skipped.
inline std::string vendor_refusal(const std::vector<DType>& dtypes, const std::vector<Device>& devices,
                                  bool vendor, bool tf32,
                                  const std::string& instead = "list [tiled, reference]") {
  const auto served = [&](DType t, bool through_tf32) {
    return std::any_of(devices.begin(), devices.end(),
                       [&](Device d) { return vendor_serves(d, t, through_tf32); });
  };
  const std::string where = describe(devices.front()) + (devices.size() > 1 ? " and the other devices" : "");
  if (vendor && !served(DType::f32, false)) return vendor_gemm_refusal(devices.front(), "tiled");
  for (DType t : dtypes) {
    if (vendor && !served(t, false))
      return "vendor has no " + to_string(t) + " GEMM for " + where +
             " in this build (cuBLAS on a CUDA GPU; oneDNN, bfloat16 only, on a CPU with AVX512_BF16): " +
             instead;
  }
  if (tf32 && std::find(dtypes.begin(), dtypes.end(), DType::f32) == dtypes.end())
    return "vendor_tf32 is float32 through TF32 tensor cores: add float32 to dtypes";
  if (tf32 && !served(DType::f32, true))
    return "vendor_tf32 (cuBLAS's TF32 tensor cores) has no GEMM for " + where +
           " in this build: it needs a CUDA GPU";
  return "";
}

namespace detail {

// α = *alpha (a scalar in C's memory) or 1 when alpha is null.
template <class CView, class AView, class BView>
void gemm_vendor_call(const CView& c, const AView& a, const BView& b, const GemmDims& d, bool accumulate,
                      const typename CView::non_const_value_type* alpha) {
  using Mem = typename CView::memory_space;
  using T = typename CView::non_const_value_type;
  static_assert(
      std::is_same_v<Mem, typename AView::memory_space> && std::is_same_v<Mem, typename BView::memory_space>,
      "gemm_vendor: A, B and C must live in one memory space");
  if constexpr (host_blas_serves<Mem>()) {
    host_vendor_gemm<T>(a.data(), b.data(), c.data(), d, accumulate, alpha);
  } else if constexpr (kHasGpuVendorGemm && std::is_same_v<Mem, GpuMemSpace>) {
    gpu_vendor_gemm<T>(a.data(), b.data(), c.data(), d, accumulate, alpha);
  } else {
#if defined(MINIGPU_HAVE_KOKKOSKERNELS_GEMM)
    // KokkosKernels takes α by value: a device α costs this one host round trip.
    T host_alpha = 1;
    if (alpha) Kokkos::deep_copy(host_alpha, Kokkos::View<const T, Mem, Kokkos::MemoryUnmanaged>(alpha));
    // Column-major Cᵀ = Bᵀ·Aᵀ over the same memory, as the BLAS calls do.
    using Dev = Kokkos::Device<typename CView::execution_space, Mem>;
    using Stride = Kokkos::LayoutStride;
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    Kokkos::View<T**, Stride, Dev, Unmanaged> ct(c.data(), Stride(d.n, 1, d.m, d.ldc));
    Kokkos::View<const T**, Stride, Dev, Unmanaged> bt(b.data(), Stride(d.n, 1, d.k, d.ldb));
    Kokkos::View<const T**, Stride, Dev, Unmanaged> at(a.data(), Stride(d.k, 1, d.m, d.lda));
    KokkosBlas::gemm("N", "N", host_alpha, bt, at, accumulate ? T(1) : T(0), ct);
#else
    (void)alpha;
    throw std::logic_error(std::string("gemm_vendor: no vendor GEMM for memory space ") + Mem::name() +
                           " in this build");
#endif
  }
}

// Each call is a Kokkos Tools region named "gemm::multiply", as native GEMMs are, so
// profilers (and tests) see BLAS calls, which launch no Kokkos kernel.
template <class CView, class AView, class BView>
void gemm_vendor(const CView& c, const AView& a, const BView& b, const GemmDims& d, bool accumulate,
                 const typename CView::non_const_value_type* alpha) {
  const ProfileRegion region("gemm::multiply");
  gemm_vendor_call(c, a, b, d, accumulate, alpha);
}

}  // namespace detail

/// C = A·B, or C += A·B when `accumulate`, for row-major flat Views (see GemmDims), queued
/// like a kernel: a GPU BLAS call does not sync the host; a host BLAS call returns when done,
/// as a host kernel does.
template <class CView, class AView, class BView>
void gemm_vendor(const CView& c, const AView& a, const BView& b, const GemmDims& d, bool accumulate) {
  detail::gemm_vendor(c, a, b, d, accumulate, nullptr);
}

/// C = α·A·B with α the value of a rank-0 View in C's memory, written by an earlier kernel:
/// the product is scaled without the host ever reading α.
template <class CView, class AView, class BView, class AlphaView>
void gemm_vendor_scaled(const CView& c, const AView& a, const BView& b, const GemmDims& d,
                        const AlphaView& alpha) {
  static_assert(
      AlphaView::rank == 0 && std::is_same_v<typename AlphaView::memory_space, typename CView::memory_space>,
      "gemm_vendor_scaled: alpha is a rank-0 View in C's memory space");
  detail::gemm_vendor(c, a, b, d, false, alpha.data());
}

/// C = A·B for contiguous row-major flat Views (A m×k, B k×n, C m×n).
template <class CView, class AView, class BView>
void matmul_vendor(const CView& c, const AView& a, const BView& b, std::int64_t m, std::int64_t n,
                   std::int64_t k) {
  gemm_vendor(c, a, b, dense_gemm(m, n, k), false);
}

/// C = A·B for n×n row-major Views summed in float: on GPU memory on the tensor cores, in a
/// 16-bit storage type or float through TF32 when `tf32` (gpu_mixed_gemm); on host memory in
/// bfloat16 (host_mixed_gemm). Only where has_vendor_gemm(d, dtype) says so; anywhere else
/// std::logic_error (inputs are refused before).
template <class View>
void matmul_vendor_mixed(const View& c, const View& a, const View& b, std::int64_t n, bool tf32) {
  using T = typename View::non_const_value_type;
  if constexpr (kHasGpuVendorGemm && std::is_same_v<typename View::memory_space, GpuMemSpace>) {
    const ProfileRegion region("gemm::multiply");
    gpu_mixed_gemm(dtype_of<T>::value, tf32, a.data(), b.data(), c.data(), dense_gemm(n, n, n));
  } else if constexpr (host_blas_serves<typename View::memory_space>() && sizeof(T) == 2) {
    const ProfileRegion region("gemm::multiply");
    if (tf32) throw std::logic_error("matmul_vendor_mixed: TF32 is a GPU tensor-core mode");
    host_mixed_gemm(dtype_of<T>::value, a.data(), b.data(), c.data(), dense_gemm(n, n, n));
  } else {
    (void)c, (void)a, (void)b, (void)n, (void)tf32;
    throw std::logic_error(std::string("matmul_vendor_mixed: no tensor-core GEMM for memory space ") +
                           View::memory_space::name() + " in this build");
  }
}

}  // namespace minigpu::kernels
