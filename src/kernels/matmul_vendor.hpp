// The vendor matrix multiply: the library a user would call instead of writing a kernel.
//   - KokkosKernels' gemm where the build found a KokkosKernels built against this very
//     Kokkos that can instantiate gemm for any type (not ETI-only; it calls cuBLAS or a host
//     BLAS itself);
//   - otherwise, on GPU memory, the GPU runtime's BLAS (cuBLAS) through core/backend_blas.
// has_vendor_gemm<MemorySpace>() says at compile time whether a space has one.
#pragma once

#include "core/backend.hpp"
#include "core/backend_blas.hpp"
#include "core/device.hpp"

#if defined(MINIGPU_HAVE_KOKKOSKERNELS)
#include <KokkosBlas3_gemm.hpp>
#if !defined(KOKKOSKERNELS_ETI_ONLY)
#define MINIGPU_HAVE_KOKKOSKERNELS_GEMM 1
#endif
#endif

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace minigpu::kernels {

/// True when matmul_vendor can run on Views in memory space Mem.
template <class Mem>
constexpr bool has_vendor_gemm() {
#if defined(MINIGPU_HAVE_KOKKOSKERNELS_GEMM)
  return true;
#else
  return kHasGpuVendorGemm && kHasGpuBackend && std::is_same_v<Mem, GpuMemSpace>;
#endif
}

/// True when matmul_vendor can run on the memory of device `d`.
inline bool has_vendor_gemm(Device d) {
  return uses_host_memory(d) ? has_vendor_gemm<HostMemSpace>() : has_vendor_gemm<GpuMemSpace>();
}

/// C = A·B for row-major flat Views (A m×k, B k×n, C m×n), queued like a kernel (no host
/// sync). BLAS is column-major, and row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ over the
/// same memory, so nothing is transposed or copied.
template <class CView, class AView, class BView>
void matmul_vendor(const CView& c, const AView& a, const BView& b, std::int64_t m, std::int64_t n,
                   std::int64_t k) {
  using Mem = typename CView::memory_space;
  static_assert(
      std::is_same_v<Mem, typename AView::memory_space> && std::is_same_v<Mem, typename BView::memory_space>,
      "matmul_vendor: A, B and C must live in one memory space");
#if defined(MINIGPU_HAVE_KOKKOSKERNELS_GEMM)
  using T = typename CView::non_const_value_type;
  using Dev = Kokkos::Device<typename CView::execution_space, Mem>;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<T**, Kokkos::LayoutLeft, Dev, Unmanaged> ct(c.data(), n, m);
  Kokkos::View<const T**, Kokkos::LayoutLeft, Dev, Unmanaged> bt(b.data(), n, k);
  Kokkos::View<const T**, Kokkos::LayoutLeft, Dev, Unmanaged> at(a.data(), k, m);
  KokkosBlas::gemm("N", "N", T(1), bt, at, T(0), ct);
#else
  if constexpr (has_vendor_gemm<Mem>()) {
    gpu_vendor_gemm(a.data(), b.data(), c.data(), m, n, k);
  } else {
    throw std::logic_error(std::string("matmul_vendor: no vendor GEMM for memory space ") + Mem::name() +
                           " in this build");
  }
#endif
}

}  // namespace minigpu::kernels
