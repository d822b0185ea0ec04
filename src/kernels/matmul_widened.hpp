// C = A·B for A, B and C stored in a 16-bit type, summing in float as mixed precision does, C
// rounded once. Two ways, chosen at compile time:
//   - bfloat16 in host memory on a build with AVX512_BF16 (kHostBf16Dot): the native host kernel
//     multiplies the bfloat16 pairs themselves with vdpbf16ps into a float C (gemm_host_bf16.hpp),
//     at twice the float FMA's flops per instruction, or on AMX's tiles where the CPU has them
//     (gemm_host_amx.hpp);
//   - otherwise A and B are widened to float and the native float kernel runs: no 16-bit
//     arithmetic, float's rate. The widening moves 2·n² elements against the product's 2n³ flops.
// Either way the rounding of C moves n² more.
#pragma once

#include "core/gemm_dims.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm.hpp"
#include "kernels/matmul_vendor.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace minigpu::kernels {

/// x converted to To: the widening and the rounding of a WidenedMatmul, as a functor. Not a
/// KOKKOS_LAMBDA: nvcc wraps a host-device lambda in an __nv_hdl_wrapper_t that map<> copies on
/// the host through a function pointer of an anonymous-namespace helper, one per translation
/// unit and set only by the unit that made the wrapper. map<>'s instantiation is merged across
/// units, so where the linker kept another unit's, the pointer was null: `kernel: auto` timing
/// a 16-bit product (gemm/timing.cpp) called address 0 on an H200 (2026-11-27).
template <class To>
struct ConvertTo {
  template <class From>
  KOKKOS_INLINE_FUNCTION To operator()(From x) const {
    return static_cast<To>(x);
  }
};

/// One n×n product of 16-bit storage S in Mem through float: its float buffers, made once.
template <class Mem, class S>
class WidenedMatmul {
 public:
  WidenedMatmul() = default;
  explicit WidenedMatmul(std::int64_t n)
      : a_("minigpu::widened::A", kDotProduct ? 0 : n * n),
        b_("minigpu::widened::B", kDotProduct ? 0 : n * n),
        c_("minigpu::widened::C", n * n) {}

  /// c = a·b for n×n row-major Views of S in Mem.
  template <class View>
  void operator()(const View& c, const View& a, const View& b, std::int64_t n) const {
    static_assert(std::is_same_v<typename View::non_const_value_type, S>, "WidenedMatmul: Views of S");
    if constexpr (kDotProduct) {
      gemm_native(c_, a, b, dense_gemm(n, n, n), false);
    } else {
      map(a_, a, ConvertTo<float>{});
      map(b_, b, ConvertTo<float>{});
      matmul(GemmKernel::native, c_, a_, b_, n, n, n);
    }
    map(c, c_, ConvertTo<S>{});
  }

 private:
  static constexpr bool kDotProduct =
      kHostBf16Dot && std::is_same_v<S, bfloat16> &&
      Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace,
                                 typename Kokkos::View<float*, Mem>::memory_space>::accessible;

  Kokkos::View<float*, Mem> a_, b_, c_;
};

/// Bytes a WidenedMatmul of n×n `storage` in host (or GPU) memory holds: a float C, and float
/// copies of A and B unless it multiplies the bfloat16 pairs themselves.
inline std::uint64_t widened_matmul_bytes(DType storage, bool host_memory, std::int64_t n) {
  const bool pairs = kHostBf16Dot && host_memory && storage == DType::bf16;
  return (pairs ? 1 : 3) * static_cast<std::uint64_t>(n * n) * sizeof(float);
}

/// C = A·B (n×n) by `kernel` whatever the storage type T: float and double through matmul;
/// 16-bit storage through the vendor's mixed GEMM (cuBLAS, oneDNN) or a WidenedMatmul (native),
/// whose float buffers it holds. So an experiment takes 16-bit dtypes without a branch of its own.
template <class Mem, class T>
class AnyMatmul {
 public:
  static constexpr bool k16Bit = sizeof(T) == 2;

  AnyMatmul() = default;
  AnyMatmul(GemmKernel kernel, std::int64_t n) : kernel_(kernel), n_(n) {
    if constexpr (k16Bit) {
      if (kernel == GemmKernel::native) widened_ = WidenedMatmul<Mem, T>(n);
    }
  }

  template <class View>
  void operator()(const View& c, const View& a, const View& b) const {
    if constexpr (k16Bit) {
      if (kernel_ == GemmKernel::vendor) return matmul_vendor_mixed(c, a, b, n_, false);
      widened_(c, a, b, n_);
    } else {
      matmul(kernel_, c, a, b, n_, n_, n_);
    }
  }

 private:
  GemmKernel kernel_ = GemmKernel::native;
  std::int64_t n_ = 0;
  std::conditional_t<k16Bit, WidenedMatmul<Mem, T>, int> widened_{};
};

}  // namespace minigpu::kernels
