// Block multiply-accumulate C = A·B or C += A·B over flat row-major Views with row strides:
// the local step of distributed products (a rank's rows, or one SUMMA panel pair).
// flops = 2·m·n·k. The native kernel for where the Views' execution space runs:
//   host  kernels/gemm_host.hpp: packed panels, cache blocking from the detected L1/L2, a
//         register tile at the build's full vector width
//   GPU   kernels/gemm_gpu.hpp: shared-memory blocks, a register tile of C per thread
#pragma once

#include "core/backend.hpp"
#include "core/gemm_dims.hpp"
#include "core/profile_region.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gemm_gpu.hpp"
#include "kernels/gemm_host.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace minigpu::kernels {

/// C = A·B (or C += A·B when `accumulate`) with the native kernel for C's execution space,
/// inside a Kokkos Tools region "gemm::multiply" like the vendor GEMM's. With `alpha`, a value
/// in C's memory that the kernel reads, C = α·A·B (+ C). `between_blocks` runs between the host
/// kernel's blocks (gemm_host); a GPU's launch returns at once, and its caller has the time.
template <class CView, class AView, class BView>
void gemm_native(const CView& c, const AView& a, const BView& b, GemmDims d, bool accumulate,
                 const typename CView::non_const_value_type* alpha = nullptr,
                 const BetweenBlocks* between_blocks = nullptr) {
  const ProfileRegion region("gemm::multiply");
  if constexpr (Kokkos::SpaceAccessibility<typename CView::execution_space, Kokkos::HostSpace>::accessible) {
    gemm_host(c, a, b, d, accumulate, alpha, between_blocks);
  } else {
    gemm_gpu(c, a, b, d, accumulate, alpha);
  }
}

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// pack_block's body: out(e) = in((e / cols)·in_ld + e % cols).
template <class OutView, class InView>
struct PackBlockBody {
  OutView out;
  InView in;
  std::int64_t cols, in_ld;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t e) const {
    out(e) = in((e / cols) * in_ld + e % cols);
  }
};

/// out(r·cols + q) = in(r·in_ld + q): a rows×cols sub-block made contiguous for sending.
template <class OutView, class InView>
void pack_block(const OutView& out, const InView& in, std::int64_t rows, std::int64_t cols,
                std::int64_t in_ld) {
  Kokkos::parallel_for("gemm::pack_block", RangeOf<OutView>(0, rows * cols),
                       PackBlockBody<OutView, InView>{out, in, cols, in_ld});
}

}  // namespace minigpu::kernels
