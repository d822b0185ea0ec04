// Scaling by a scalar that lives on the device, so a normalisation needs no host sync.
#pragma once

#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace minigpu::kernels {

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// divide_by_device_scalar's body: out(i) = in(i) / divisor().
template <class OutView, class InView, class DivisorView>
struct DivideByDeviceScalarBody {
  OutView out;
  InView in;
  DivisorView divisor;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { out(i) = in(i) / divisor(); }
};

/// out(i) = in(i) / divisor(), where `divisor` is a rank-0 View in out's memory space (e.g.
/// the result of frobenius_norm_into): read on the device, never copied to the host.
template <class OutView, class InView, class DivisorView>
void divide_by_device_scalar(const OutView& out, const InView& in, const DivisorView& divisor) {
  static_assert(DivisorView::rank == 0, "the divisor is a rank-0 View");
  static_assert(std::is_same_v<typename OutView::memory_space, typename DivisorView::memory_space>,
                "the divisor must live in the memory space of the output");
  Kokkos::parallel_for("scale::divide_by_device_scalar", RangeOf<OutView>(0, out.extent(0)),
                       DivideByDeviceScalarBody<OutView, InView, DivisorView>{out, in, divisor});
}

/// scale_by_device_scalar's body on a host: v(i) *= factor() over block `block` of kBlock
/// elements, the factor read once per block.
template <class View, class FactorView>
struct ScaleBlockByDeviceScalarBody {
  static constexpr std::int64_t kBlock = 1024;
  View v;
  FactorView factor;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t block) const {
    using Value = typename View::non_const_value_type;
    const auto f = factor();
    const std::int64_t end = block * kBlock + kBlock < n ? block * kBlock + kBlock : n;
    for (std::int64_t i = block * kBlock; i < end; ++i) v(i) = Value(v(i) * f);
  }
};

/// scale_by_device_scalar's body on a GPU: v(i) *= factor(), the factor read per element.
template <class View, class FactorView>
struct ScaleByDeviceScalarBody {
  View v;
  FactorView factor;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    using Value = typename View::non_const_value_type;
    v(i) = Value(v(i) * factor());
  }
};

/// v(i) *= factor(), with factor a rank-0 View in v's memory written by an earlier kernel. 16-bit
/// entries are multiplied in float (the factor's type) and rounded once.
template <class View, class FactorView>
void scale_by_device_scalar(const View& v, const FactorView& factor) {
  static_assert(FactorView::rank == 0, "the factor is a rank-0 View");
  static_assert(std::is_same_v<typename View::memory_space, typename FactorView::memory_space>,
                "the factor must live in the memory space of the View");
  const std::int64_t n = v.extent(0);
  if constexpr (Kokkos::SpaceAccessibility<typename View::execution_space, Kokkos::HostSpace>::accessible) {
    // The factor is read once per block of 1024: read per element, it might alias v (same
    // type), so every store would force a reload and the loop would not vectorise.
    using Body = ScaleBlockByDeviceScalarBody<View, FactorView>;
    const std::int64_t blocks = (n + Body::kBlock - 1) / Body::kBlock;
    const Body body{v, factor, n};
    if (one_thread_suffices(v, n)) {
      Kokkos::parallel_for("scale::multiply_by_device_scalar", OneThreadRange(0, blocks), body);
    } else {
      Kokkos::parallel_for("scale::multiply_by_device_scalar", RangeOf<View>(0, blocks), body);
    }
  } else {
    Kokkos::parallel_for("scale::multiply_by_device_scalar", RangeOf<View>(0, n),
                         ScaleByDeviceScalarBody<View, FactorView>{v, factor});
  }
}

}  // namespace minigpu::kernels
