// GPU block multiply-accumulate C = A·B or C += A·B over flat row-major Views with row strides
// (flops = 2·m·n·k): the classic hand-written SGEMM structure in portable Kokkos, where
// gemm_block_tiled (one thread per C element, 16×16 tiles) reached only 0.11× cuBLAS.
// Three levels of blocking, each cutting the traffic of the slower memory above it:
//   team      a BM×BN block of C (float 128×128, double 128×64): every A element fetched from
//             global memory feeds BN multiply-adds, every B element BM
//   scratch   BK = 8 deep slices of A (stored transposed, [BK][BM], so the compute loop reads
//             contiguous rows) and of B, double-buffered: the next slice's global loads are in
//             flight during the current slice's arithmetic, and one barrier per slice suffices
//   register  each of the 256 threads keeps a TM×TN = 8×8 (double 8×4) tile of C in registers
//             and per k step loads TM values of A and TN of B from scratch: 16 scratch words
//             feed 64 FMAs (outer product; double 12 feed 32), so shared memory keeps up
// Every access that can be is 16 bytes wide (W = 4 floats, 2 doubles). A thread's tile is made
// of W-wide pieces set a block-width fraction apart (float: 4×4 pieces BM/2, BN/2 apart), not
// one contiguous 8×8: its 16-byte scratch reads then fall in distinct banks across the 8 threads
// served together, and its C stores lie side by side across the warp. Interior blocks with
// 16-byte aligned pointers and leading dimensions load and store vectors; edge blocks take
// guarded scalar loads, zero-filled outside the matrices, and guarded stores.
#pragma once

#include "core/gemm_dims.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>

// Device passes fully unroll the fixed-trip loops so that the tile arrays stay in registers;
// host compilers need no hint (and g++ -Wall warns on a pragma it does not know).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define MINIGPU_GEMM_UNROLL _Pragma("unroll")
#else
#define MINIGPU_GEMM_UNROLL
#endif

namespace minigpu::kernels {

namespace detail {

/// Block and thread-tile shape per element type; both give 256 threads of (BM/TM)·(BN/TN).
/// Double's thread tile is 8×4 (64 registers of accumulators), which keeps two teams per SM
/// under the 128-register launch bound.
template <class T>
struct GemmGpuShape;
template <>
struct GemmGpuShape<float> {
  static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
};
template <>
struct GemmGpuShape<double> {
  static constexpr int BM = 128, BN = 64, BK = 8, TM = 8, TN = 4;
};

/// 16 consecutive bytes (4 floats, 2 doubles), moved by one vector load or store.
template <class T>
struct alignas(16) Vec {
  static constexpr int W = static_cast<int>(16 / sizeof(T));
  T v[W];
};

inline bool vec_aligned(const void* p, std::int64_t ld, std::size_t elem_bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 &&
         (ld * static_cast<std::int64_t>(elem_bytes)) % 16 == 0;
}

/// The work of one team: block (league rank) of C. `*_vec`: 16-byte accesses are legal.
/// `Scaled`: C = α·A·B (+ C), α read from `alpha`; otherwise α is not read, and the kernel is
/// the one without it (see the write-back).
template <bool Scaled, class T, class Member>
KOKKOS_INLINE_FUNCTION void gemm_gpu_team(const Member& team, T* c, const T* a, const T* b, const GemmDims& d,
                                          bool accumulate, const T* alpha, bool a_vec, bool b_vec, bool c_vec,
                                          std::int64_t blocks_m, std::int64_t blocks_n) {
  using S = GemmGpuShape<T>;
  using V = Vec<T>;
  constexpr int BM = S::BM, BN = S::BN, BK = S::BK, TM = S::TM, TN = S::TN, W = V::W;
  constexpr int NX = BN / TN, NT = (BM / TM) * NX;             // threads along a row of the block, in all
  constexpr int LDS = BM + W;                                  // 16-byte pad: conflict-free transposed stores
  constexpr int SM = BM / (TM / W), SN = BN / (TN / W);        // gap between a thread's W×W pieces
  constexpr int AL = BM * BK / W / NT, BL = BK * BN / W / NT;  // vectors per thread per slice
  constexpr int ABUF = BK * LDS, BBUF = BK * BN;
  static_assert(TM % W == 0 && TN % W == 0 && BK % W == 0 && NT == 256, "shape assumptions");
  static_assert(AL * W * NT == BM * BK && BL * W * NT == BK * BN, "whole vectors per thread");

  // League order: groups of 8 block-rows sweep the block-columns together, so the teams
  // resident at one time cover a squarish patch of C and re-read each other's A rows and B
  // columns from L2 instead of streaming whole block-rows of B from memory.
  constexpr std::int64_t G = 8;
  const std::int64_t rank = team.league_rank(), group = rank / (G * blocks_n), local = rank % (G * blocks_n);
  const std::int64_t rows_in_group = blocks_m - group * G < G ? blocks_m - group * G : G;
  const std::int64_t i0 = (group * G + local % rows_in_group) * BM, j0 = (local / rows_in_group) * BN;

  const int tid = team.team_rank(), tx = tid % NX, ty = tid / NX;
  T* const as = static_cast<T*>(team.team_scratch(0).get_shmem_aligned(2 * (ABUF + BBUF) * sizeof(T), 16));
  T* const bs = as + 2 * ABUF;

  // Global → registers for the slice starting at p0; interior slices with aligned rows move
  // whole vectors, the rest element by element with zeros outside the matrices.
  V ra[AL], rb[BL];
  auto load = [&](std::int64_t p0) {
    const bool a_fast = a_vec && i0 + BM <= d.m && p0 + BK <= d.k;
    const bool b_fast = b_vec && j0 + BN <= d.n && p0 + BK <= d.k;
    MINIGPU_GEMM_UNROLL
    for (int l = 0; l < AL; ++l) {
      const int q = tid + l * NT;
      const std::int64_t i = i0 + q / (BK / W), p = p0 + q % (BK / W) * W;
      if (a_fast) {
        ra[l] = *reinterpret_cast<const V*>(a + i * d.lda + p);
      } else {
        MINIGPU_GEMM_UNROLL
        for (int e = 0; e < W; ++e) ra[l].v[e] = i < d.m && p + e < d.k ? a[i * d.lda + p + e] : T(0);
      }
    }
    MINIGPU_GEMM_UNROLL
    for (int l = 0; l < BL; ++l) {
      const int q = tid + l * NT;
      const std::int64_t p = p0 + q / (BN / W), j = j0 + q % (BN / W) * W;
      if (b_fast) {
        rb[l] = *reinterpret_cast<const V*>(b + p * d.ldb + j);
      } else {
        MINIGPU_GEMM_UNROLL
        for (int e = 0; e < W; ++e) rb[l].v[e] = p < d.k && j + e < d.n ? b[p * d.ldb + j + e] : T(0);
      }
    }
  };
  // Registers → scratch buffer `buf`: A transposed element by element, B a vector at a time.
  auto store = [&](int buf) {
    MINIGPU_GEMM_UNROLL
    for (int l = 0; l < AL; ++l) {
      const int q = tid + l * NT;
      MINIGPU_GEMM_UNROLL
      for (int e = 0; e < W; ++e) as[buf * ABUF + (q % (BK / W) * W + e) * LDS + q / (BK / W)] = ra[l].v[e];
    }
    MINIGPU_GEMM_UNROLL
    for (int l = 0; l < BL; ++l) {
      const int q = tid + l * NT;
      *reinterpret_cast<V*>(bs + buf * BBUF + q / (BN / W) * BN + q % (BN / W) * W) = rb[l];
    }
  };

  T acc[TM][TN];
  MINIGPU_GEMM_UNROLL
  for (int r = 0; r < TM; ++r) {
    MINIGPU_GEMM_UNROLL
    for (int s = 0; s < TN; ++s) acc[r][s] = T(0);
  }
  const std::int64_t slices = (d.k + BK - 1) / BK;
  if (slices > 0) {
    load(0);
    store(0);
  }
  team.team_barrier();
  for (std::int64_t t = 0; t < slices; ++t) {
    const int cur = static_cast<int>(t & 1);
    if (t + 1 < slices) load((t + 1) * BK);  // in flight during the arithmetic below
    const T* const at = as + cur * ABUF + ty * W;
    const T* const bt = bs + cur * BBUF + tx * W;
    MINIGPU_GEMM_UNROLL
    for (int kk = 0; kk < BK; ++kk) {
      T ar[TM], br[TN];
      MINIGPU_GEMM_UNROLL
      for (int h = 0; h < TM / W; ++h) {
        const V x = *reinterpret_cast<const V*>(at + kk * LDS + h * SM);
        MINIGPU_GEMM_UNROLL
        for (int e = 0; e < W; ++e) ar[h * W + e] = x.v[e];
      }
      MINIGPU_GEMM_UNROLL
      for (int h = 0; h < TN / W; ++h) {
        const V x = *reinterpret_cast<const V*>(bt + kk * BN + h * SN);
        MINIGPU_GEMM_UNROLL
        for (int e = 0; e < W; ++e) br[h * W + e] = x.v[e];
      }
      MINIGPU_GEMM_UNROLL
      for (int r = 0; r < TM; ++r) {
        MINIGPU_GEMM_UNROLL
        for (int s = 0; s < TN; ++s) acc[r][s] += ar[r] * br[s];
      }
    }
    // The other buffer was last read before the previous barrier, so it is free to fill; the
    // barrier below publishes it and frees `cur` for the slice after next.
    if (t + 1 < slices) store(cur ^ 1);
    team.team_barrier();
  }

  // Write back: acc[h·W + e][g·W + f] is C(i0 + h·SM + ty·W + e, j0 + g·SN + tx·W + f), times α
  // read here, on the device, where an earlier kernel wrote it. Only a scaled product reads and
  // multiplies: with α in every instantiation the float32 kernel compiled differently and ran
  // 6-7 % slower on an H200 (n = 4096: 38.5 against 41.2 TFLOP/s; float64 alike either way).
  [[maybe_unused]] const T scale = Scaled ? *alpha : T(1);
  const bool c_fast = c_vec && i0 + BM <= d.m && j0 + BN <= d.n;
  MINIGPU_GEMM_UNROLL
  for (int r = 0; r < TM; ++r) {
    const std::int64_t i = i0 + r / W * SM + ty * W + r % W;
    if (!c_fast && i >= d.m) continue;
    T* const crow = c + i * d.ldc;
    MINIGPU_GEMM_UNROLL
    for (int g = 0; g < TN / W; ++g) {
      const std::int64_t j = j0 + g * SN + tx * W;
      if (c_fast) {
        V x = accumulate ? *reinterpret_cast<const V*>(crow + j) : V{};
        MINIGPU_GEMM_UNROLL
        for (int f = 0; f < W; ++f) {
          if constexpr (Scaled) {
            x.v[f] += scale * acc[r][g * W + f];
          } else {
            x.v[f] += acc[r][g * W + f];
          }
        }
        *reinterpret_cast<V*>(crow + j) = x;
      } else {
        MINIGPU_GEMM_UNROLL
        for (int f = 0; f < W; ++f) {
          if (j + f >= d.n) continue;
          if constexpr (Scaled) {
            crow[j + f] = (accumulate ? crow[j + f] : T(0)) + scale * acc[r][g * W + f];
          } else {
            crow[j + f] = accumulate ? crow[j + f] + acc[r][g * W + f] : acc[r][g * W + f];
          }
        }
      }
    }
  }
}

}  // namespace detail

/// gemm_gpu's body, a functor rather than a KOKKOS_LAMBDA (see MapBody, kernels/elementwise.hpp):
/// each team computes one block of C (detail::gemm_gpu_team).
template <bool Scaled, class T, class Member>
struct GemmGpuBody {
  T* c;
  const T* a;
  const T* b;
  GemmDims d;
  bool accumulate;
  const T* alpha;
  bool a_vec, b_vec, c_vec;
  std::int64_t blocks_m, blocks_n;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    detail::gemm_gpu_team<Scaled>(team, c, a, b, d, accumulate, alpha, a_vec, b_vec, c_vec, blocks_m,
                                  blocks_n);
  }
};

/// C = A·B (or C += A·B when `accumulate`) for row-major flat Views (rows lda/ldb/ldc long,
/// see GemmDims) in GPU memory, on CView's execution space; with `alpha` (in GPU memory, read by
/// the kernel), C = α·A·B (+ C). The Views must have unit stride
/// (flat or contiguous subviews). Launches exactly 256 threads per team, so it runs on GPU
/// execution spaces only: on a host space it throws std::invalid_argument (use gemm_block).
template <class CView, class AView, class BView>
void gemm_gpu(const CView& c, const AView& a, const BView& b, GemmDims d, bool accumulate,
              const typename CView::non_const_value_type* alpha = nullptr) {
  using T = typename CView::non_const_value_type;
  using Exec = typename CView::execution_space;
  static_assert(CView::rank == 1 && AView::rank == 1 && BView::rank == 1, "gemm_gpu takes flat Views");
  if constexpr (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible) {
    throw std::invalid_argument("minigpu::kernels::gemm_gpu: needs a GPU execution space, not a host one");
  } else {
    using S = detail::GemmGpuShape<T>;
    constexpr int team_size = (S::BM / S::TM) * (S::BN / S::TN);
    // C += A·B with k = 0 changes nothing; C = A·B with k = 0 runs, and writes zeros.
    if (d.m <= 0 || d.n <= 0 || (d.k <= 0 && accumulate)) return;
    const std::int64_t blocks_m = (d.m + S::BM - 1) / S::BM, blocks_n = (d.n + S::BN - 1) / S::BN;
    T* const cp = c.data();
    const T* const ap = a.data();
    const T* const bp = b.data();
    const bool a_vec = detail::vec_aligned(ap, d.lda, sizeof(T));
    const bool b_vec = detail::vec_aligned(bp, d.ldb, sizeof(T));
    const bool c_vec = detail::vec_aligned(cp, d.ldc, sizeof(T));
    // Two slices of A (padded) and B, plus slack to align the start to 16 bytes.
    constexpr int W = detail::Vec<T>::W;
    const std::size_t scratch_bytes = 2 * (S::BK * (S::BM + W) + S::BK * S::BN) * sizeof(T) + 16;
    // At most 128 registers per thread, so that two teams (16 warps) share an SM.
    using Policy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<team_size, 2>>;
    Policy policy(static_cast<int>(blocks_m * blocks_n), team_size);
    policy.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
    using Member = typename Policy::member_type;
    if (alpha) {
      Kokkos::parallel_for("gemm::gpu_tiled", policy,
                           GemmGpuBody<true, T, Member>{cp, ap, bp, d, accumulate, alpha, a_vec, b_vec, c_vec,
                                                        blocks_m, blocks_n});
    } else {
      Kokkos::parallel_for("gemm::gpu_tiled", policy,
                           GemmGpuBody<false, T, Member>{cp, ap, bp, d, accumulate, alpha, a_vec, b_vec,
                                                         c_vec, blocks_m, blocks_n});
    }
  }
}

}  // namespace minigpu::kernels

#undef MINIGPU_GEMM_UNROLL
