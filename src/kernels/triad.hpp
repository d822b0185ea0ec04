// STREAM's triad, a(i) = b(i) + s·c(i): the memory-bandwidth reference of the ceilings layer.
// Pure Kokkos: runs in the execution space of the Views it is given.
#pragma once

#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

namespace minigpu::kernels {

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// triad's body: a(i) = b(i) + s·c(i).
template <class View>
struct TriadBody {
  View a, b, c;
  typename View::non_const_value_type s;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { a(i) = b(i) + s * c(i); }
};

/// On the host, an `a` too large to stay in cache is written with streaming stores, as STREAM
/// built for bandwidth does: ordinary stores would first read each line of `a`, 32 bytes moved
/// for the 24 counted, and a streamed pass (lazy's chain) would then beat its own ceiling.
template <class View>
void triad(const View& a, const View& b, const View& c, typename View::non_const_value_type s) {
  if constexpr (Kokkos::SpaceAccessibility<typename View::execution_space, Kokkos::HostSpace>::accessible) {
    if (streams_on_host(a, b, c)) {
      const auto* const pb = b.data();
      const auto* const pc = c.data();
      const auto [range, block] =
          streaming_launch(a, [=](const std::int64_t i) { return pb[i] + s * pc[i]; });
      Kokkos::parallel_for("stream::triad", range, block);
      return;
    }
  }
  Kokkos::parallel_for("stream::triad", RangeOf<View>(0, a.extent(0)), TriadBody<View>{a, b, c, s});
}

}  // namespace minigpu::kernels
