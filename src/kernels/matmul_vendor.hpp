// The vendor matrix multiply: KokkosKernels' gemm (a BLAS or cuBLAS call where its build has
// one). Available only when the build found KokkosKernels and that build can instantiate gemm
// for any type (not ETI-only): then MINIGPU_HAVE_VENDOR_GEMM is defined.
#pragma once

#if defined(MINIGPU_HAVE_KOKKOSKERNELS)
#include <KokkosBlas3_gemm.hpp>
#if !defined(KOKKOSKERNELS_ETI_ONLY)
#define MINIGPU_HAVE_VENDOR_GEMM 1
#endif
#endif

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace minigpu::kernels {

#if defined(MINIGPU_HAVE_VENDOR_GEMM)
/// C = A·B for row-major flat Views (A m×k, B k×n). BLAS is column-major, and row-major C = A·B
/// is column-major Cᵀ = Bᵀ·Aᵀ over the same memory, so no data is transposed or copied.
template <class CView, class AView, class BView>
void matmul_vendor(const CView& c, const AView& a, const BView& b, std::int64_t m, std::int64_t n,
                   std::int64_t k) {
  using T = typename CView::non_const_value_type;
  using Dev = Kokkos::Device<typename CView::execution_space, typename CView::memory_space>;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::View<T**, Kokkos::LayoutLeft, Dev, Unmanaged> ct(c.data(), n, m);
  Kokkos::View<const T**, Kokkos::LayoutLeft, Dev, Unmanaged> bt(b.data(), n, k);
  Kokkos::View<const T**, Kokkos::LayoutLeft, Dev, Unmanaged> at(a.data(), k, m);
  KokkosBlas::gemm("N", "N", T(1), bt, at, T(0), ct);
}
#endif

}  // namespace minigpu::kernels
