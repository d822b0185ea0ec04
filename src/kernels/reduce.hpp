// Reductions whose result stays in the memory space of the input (no host sync): the result
// is a rank-0 View of that space, a subview of a device log entry for instance.
#pragma once

#include "core/cpu_info.hpp"
#include "core/kokkos_compat.hpp"
#include "core/low_precision.hpp"
#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

#include <utility>

#include <type_traits>

namespace minigpu::kernels {

template <class InView, class OutView>
constexpr void require_same_space() {
  static_assert(OutView::rank == 0, "the result of a reduction is a rank-0 View");
  static_assert(std::is_same_v<typename InView::memory_space, typename OutView::memory_space>,
                "the result must live in the memory space of the input");
}

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// sum_into's body: acc += in(i), in the entries' own type.
template <class InView>
struct SumBody {
  using value_type = typename InView::non_const_value_type;
  InView in;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, value_type& acc) const { acc += in(i); }
};

/// out() = sum of in(i).
template <class InView, class OutView>
void sum_into(const InView& in, const OutView& out) {
  require_same_space<InView, OutView>();
  Kokkos::parallel_reduce("reduce::sum", RangeOf<InView>(0, in.extent(0)), SumBody<InView>{in}, out);
}

/// x² in Acc, the type a sum of squares runs in: float for 16-bit storage, as mixed precision
/// does (a bfloat16 sum of 10^4 squares would stall near 2^8 times its first).
template <class Acc, class X>
KOKKOS_INLINE_FUNCTION Acc square_in(X x) {
  const auto v = static_cast<Acc>(x);
  return v * v;
}

/// Sum of squares whose final step takes the root (or its reciprocal): the norm in one
/// reduction, one launch, summed in the entries' accumulation type (square_in).
template <class InView, bool Reciprocal = false>
struct SquaredSumRoot {
  using value_type = accumulator_t<typename InView::non_const_value_type>;
  InView in;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, value_type& acc) const {
    acc += square_in<value_type>(in(i));
  }
  KOKKOS_INLINE_FUNCTION void final(value_type& acc) const {
    acc = Reciprocal ? value_type(1) / kmath::sqrt(acc) : kmath::sqrt(acc);
  }
};

/// SquaredSumRoot for host backends, over blocks of kBlock elements. One accumulator per
/// thread is a chain of dependent adds (about 4 cycles each, and the compiler may not reorder
/// a floating-point sum): 17 µs for the 10^4 entries of the logging step's 100×100 matrix.
/// kLanes independent partial sums per block let the adds overlap and vectorise: eight vectors'
/// worth, as two FMA pipes of 4 cycles' latency need eight chains in flight (the bare loop over
/// 10^4 floats took 0.18 µs on four AVX-512 chains, 0.13 on eight; launched, 2-4 % of the
/// norm's 0.35; Zen 5 VM). They are summed in halves (a tree of log2(kLanes) vector steps), and
/// blocks of 2048 make 5 joins for 10^4 floats where blocks of 512 made 20 (the norm 0.56 µs on
/// one thread against 0.73).
template <class InView, bool Reciprocal = false>
struct BlockedSquaredSumRoot {
  using value_type = accumulator_t<typename InView::non_const_value_type>;
  static constexpr std::int64_t kBlock = 2048,
                                kLanes = 8 * static_cast<std::int64_t>(kHostVectorBytes / sizeof(value_type));
  InView in;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t block, value_type& acc) const {
    value_type part[kLanes] = {};
    const std::int64_t end = block * kBlock + kBlock < n ? block * kBlock + kBlock : n;
    std::int64_t i = block * kBlock;
    for (; i + kLanes <= end; i += kLanes) {
      for (std::int64_t l = 0; l < kLanes; ++l) part[l] += square_in<value_type>(in(i + l));
    }
    for (std::int64_t l = 0; i < end; ++i, ++l) part[l] += square_in<value_type>(in(i));
    for (std::int64_t half = kLanes / 2; half > 0; half /= 2) {
      for (std::int64_t l = 0; l < half; ++l) part[l] += part[l + half];
    }
    acc += part[0];
  }
  KOKKOS_INLINE_FUNCTION void final(value_type& acc) const {
    acc = Reciprocal ? value_type(1) / kmath::sqrt(acc) : kmath::sqrt(acc);
  }
};

/// The reduction over `in` that squared_sum_root_into launches: blocks on the host (one
/// accumulator per block lane, so the adds are not one dependent chain), an element per
/// iteration on a GPU.
template <bool Reciprocal, class InView>
auto squared_sum_root_launch(const InView& in) {
  const std::int64_t n = in.extent(0);
  if constexpr (Kokkos::SpaceAccessibility<typename InView::execution_space, Kokkos::HostSpace>::accessible) {
    using F = BlockedSquaredSumRoot<InView, Reciprocal>;
    return std::make_pair(RangeOf<InView>(0, (n + F::kBlock - 1) / F::kBlock), F{in, n});
  } else {
    return std::make_pair(RangeOf<InView>(0, n), SquaredSumRoot<InView, Reciprocal>{in});
  }
}

/// Whether a View's execution space is a host one (the one-thread path compiles only there).
template <class InView>
constexpr bool on_host() {
  return Kokkos::SpaceAccessibility<typename InView::execution_space, Kokkos::HostSpace>::accessible;
}

/// out() = sqrt(sum of in(i)^2), computed and stored on the device of `in`; a small host View
/// on the calling thread alone.
template <class InView, class OutView>
void frobenius_norm_into(const InView& in, const OutView& out) {
  require_same_space<InView, OutView>();
  const auto [range, functor] = squared_sum_root_launch<false>(in);
  if constexpr (on_host<InView>()) {
    if (one_thread_suffices(in, in.extent(0))) {
      return Kokkos::parallel_reduce("reduce::frobenius_norm", OneThreadRange(range.begin(), range.end()),
                                     functor, out);
    }
  }
  Kokkos::parallel_reduce("reduce::frobenius_norm", range, functor, out);
}

/// out() = 1 / sqrt(sum of in(i)^2): the factor that normalises `in`, in the same single
/// reduction, so a following kernel can scale by it without a division per element.
template <class InView, class OutView>
void inverse_frobenius_norm_into(const InView& in, const OutView& out) {
  require_same_space<InView, OutView>();
  const auto [range, functor] = squared_sum_root_launch<true>(in);
  if constexpr (on_host<InView>()) {
    if (one_thread_suffices(in, in.extent(0))) {
      return Kokkos::parallel_reduce("reduce::inverse_frobenius_norm",
                                     OneThreadRange(range.begin(), range.end()), functor, out);
    }
  }
  Kokkos::parallel_reduce("reduce::inverse_frobenius_norm", range, functor, out);
}

}  // namespace minigpu::kernels
