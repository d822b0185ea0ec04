// gemm_host's register tiles: the micro-kernel that keeps an MT×(NV vectors) tile of C in vector
// registers for kc rank-1 updates (one broadcast of A per row, one load of B per vector, MT·NV
// FMAs per step of k), and the choice of tile for each block of C that gemm_host hands out. See
// gemm_host.hpp for the loops around it; bfloat16 operands take gemm_host_bf16.hpp's tile.
#pragma once

#include "core/backend.hpp"
#include "core/cpu_info.hpp"
#include "kernels/gemm_host_bf16.hpp"

#include <cstdint>
#include <cstdlib>
#include <type_traits>

namespace minigpu::kernels::detail {

// Register tile per element type and height. With 32 vector registers (AVX-512) a 12 × 2-vector
// tile takes 24 accumulators and leaves room for the B loads and A broadcasts; on Zen 5 it ran
// within noise of 8×3, 6×4 and 14×2 for float and double. With 16 registers (AVX2, SSE) 6 × 2 is
// the classic fit. Products whose A is packed take kHostPackedRows rows instead.
template <class T, int Rows = (kHostVectorBytes >= 64 ? 12 : 6)>
struct HostTile {
  static constexpr int W = kHostVectorBytes / static_cast<int>(sizeof(T));  // lanes per vector
  static constexpr int MR = Rows;
  static constexpr int NV = 2;  // vectors per row of the tile
  static constexpr int NR = NV * W;
  static constexpr int M1 = MR / 3, M2 = 2 * MR / 3;  // the shorter tiles for C's last rows
};

// The tile's rows where A is packed (gemm_host), for operands of C's type: with AVX-512, 14 × 2
// vectors (28 accumulators, B's two vectors and one broadcast: 31 of 32 registers). Each step of
// k loads B's two vectors for 28 FMAs instead of 24, and each KC×NR panel of B, streamed from L2
// for every tile, serves 14 rows. 2-core Xeon VM (AVX-512, 48 KiB L1d, 2 MiB L2), 2026-12-01,
// 3-4 alternating rounds of gemm_host, GFLOP/s at 12 / 14 rows: 1 thread float64 n = 1024
// 98.0-99.3 / 99.4-100.4, n = 2048 97.3-100.2 / 102.0-102.7, float32 n = 2048 201-204 /
// 202-205; 2 threads float64 n = 1024 187-188 / 194-198, n = 2048 191-193 / 199-201, float32
// n = 1024 354-376 / 390-393, n = 2048 381-384 / 401-405. Read in place (small products) the
// 14-row tile ran 25-35 % slower (5 row pointers of A, and ragged tails at n = 64 ... 256), so
// those keep 12.
inline constexpr int kHostPackedRows = kHostVectorBytes >= 64 ? 14 : HostTile<float>::MR;

// Steps of k ahead at which the micro-kernel asks for its packed panels' next lines (4, 12 and
// 16 ran level with 8).
inline constexpr int kPrefetchSteps = 8;
// The same for B read in place under A read in place, where B's rows lie ldb apart and its panel
// does not stay in L1 (AskB below): 2 and 4 ran level, 8 and 16 slower.
inline constexpr int kInPlacePrefetchSteps = 4;

#if defined(MINIGPU_HOST_VECTOR_TYPES)
template <class T, int Bytes = kHostVectorBytes>
struct HostVec {
  typedef T type __attribute__((vector_size(Bytes)));
};
#endif

// One MT×(NV·W) tile of C: C = α·acc, or C = α·acc + C when load_c (a BLAS's α, β = 0 or 1). Only rows×cols
// of the tile are written, so padded lanes never touch memory beyond C.
//   DirectA  A read in place, MT whole rows lda apart, instead of from a packed MR-row panel.
//   DirectB  B read in place, rows ldb apart, instead of from a packed NR-wide panel.
//   NV, VB   the vectors of B it multiplies and their bytes: one for a last panel of at most one
//            vector's columns, and half of one for a panel of at most half (n = 100 in float32
//            then computes 104 columns, not 112; where a 512-bit FMA issues as two 256-bit
//            halves, as on this Zen 5, half a vector also takes half the time).
//   MT       the rows: MR, or a shorter tile for C's last rows (m = 128: ten tiles of 12 and one
//            of 8, where tiles of 12 would compute 132 rows).
//   PR       the rows of a packed panel of A (its step along k), the tile's full height.
//   AskB     with A and B both in place, ask for B's rows kInPlacePrefetchSteps ahead: where B's
//            panel outgrows L1 its rows, ldb apart, come from L2 one step at a time, and the
//            hardware's prefetchers did not keep up. 1 thread, n = 256, alternating rounds,
//            medians (Xeon VM, 2026-12-01): float64 85.0 → 88.2 GFLOP/s, float32 187 → 192; on 2
//            threads +0.5 to +2 %. Where the panel stays in L1 (n = 64 ... 128) the prefetches
//            cost float32 1.4-1.8 %, so gemm_host asks only where it does not.
// Measured alone on Zen 5 (float32, k = 100, cycles against the FMA's due): 12 rows × 2 vectors
// 2400 / 2400, 8 × 2 1600 / 1600; 12 × half a vector 766 / 600 and 8 × half 525 / 400, where a
// broadcast of A for every FMA makes them load-bound. Three vectors a row, the last of them half
// (8 rows: 24 accumulators, the most that fit beside B's loads), took that last panel with the
// one before it at 2206 / 2000 cycles, more than the two tiles apart (1592 + 525).
template <class T, bool DirectA = false, int NV = HostTile<T>::NV, int MT = HostTile<T>::MR,
          bool DirectB = false, int VB = kHostVectorBytes, int PR = HostTile<T>::MR, bool AskB = false>
inline void micro_kernel(std::int64_t kc, const T* __restrict__ a, const T* __restrict__ b, T* c,
                         std::int64_t ldc, int rows, int cols, bool load_c, T alpha, std::int64_t lda = 0,
                         std::int64_t ldb = HostTile<T>::NR) {
  constexpr std::int64_t a_step = DirectA ? 1 : PR;
  const std::int64_t b_step = DirectB ? ldb : HostTile<T>::NR;
  constexpr int MR = MT, NR = HostTile<T>::NR;
  static_assert(MT >= 1 && MT <= PR, "a tile of at most the panel's rows");
  alignas(64) T tile[MR * NR];
#if defined(MINIGPU_HOST_VECTOR_TYPES)
  using V = typename HostVec<T, VB>::type;
  constexpr int W = VB / static_cast<int>(sizeof(T));
  static_assert(VB == kHostVectorBytes || NV == 1, "half vectors only for a one-vector tile");
  static_assert(NV >= 1 && NV <= HostTile<T>::NV, "a tile multiplies at most the panel's vectors");
  // C's lines are written once per tile; asking for them now hides their miss behind the k loop.
  // Products whose A is read in place are small enough for C to be in cache already, and the
  // prefetches cost them 1-2 % (n = 64 and 100, float32).
  if constexpr (!DirectA) {
    for (int r = 0; r < rows; ++r) {
      __builtin_prefetch(c + r * ldc, 1);
      __builtin_prefetch(c + r * ldc + cols - 1, 1);
    }
  }
  V acc[MR][NV] = {};
  // A read in place: rows in groups of three, one pointer each, so that every row is that
  // pointer plus 0, 1 or 2 times lda (x86's scaled index). Twelve row offsets of their own took
  // more general registers than there are, and the spills ran the loop 13 % slower (n = 64).
  constexpr int G = DirectA ? (MR + 2) / 3 : 1;
  const T* ag[G];
#pragma GCC unroll 4
  for (int g = 0; g < G; ++g) ag[g] = a + (DirectA ? 3 * g * lda : 0);
  for (std::int64_t p = 0; p < kc; ++p, b += b_step) {
    // Both packed panels are asked for kPrefetchSteps steps of k ahead. With the hardware's
    // prefetchers alone, A streaming from L2 (kc = 512, 40 tiles of A against one panel of B) fed
    // float64 at 99 GFLOP/s, 81 % of the FMA peak; with these at 113, 92 % (2-core Xeon VM).
    if constexpr (!DirectA) {
      __builtin_prefetch(ag[0] + kPrefetchSteps * a_step);
      if constexpr (a_step * sizeof(T) > 64)
        __builtin_prefetch(ag[0] + kPrefetchSteps * a_step + 64 / sizeof(T));
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) __builtin_prefetch(b + kPrefetchSteps * b_step + v * W);
    } else if constexpr (DirectB && AskB) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) __builtin_prefetch(b + kInPlacePrefetchSteps * b_step + v * W);
    }
    V bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) __builtin_memcpy(&bv[v], b + v * W, sizeof(V));
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const T ar = DirectA ? ag[r / 3][(r % 3) * lda] : ag[0][r];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] += ar * bv[v];
    }
#pragma GCC unroll 4
    for (int g = 0; g < G; ++g) ag[g] += a_step;
  }
  // C = α·acc (+ C): one multiply per accumulator, against MT·NV·kc FMAs, and none for α = 1.
  if (alpha != T(1)) {
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] *= alpha;
    }
  }
  // The epilogue's loops unrolled too: otherwise acc is kept in memory for them, zeroed by a
  // call to memset and spilled after the k loop, every tile.
  if (rows == MR && cols == NV * W) {
    // All of C's loads before any store: rows ldc apart can share address bits 0-11, and a load
    // issued after a store to such an address waits on a false store-forwarding dependence.
    if (load_c) {
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
          V old;
          __builtin_memcpy(&old, c + r * ldc + v * W, sizeof(V));
          acc[r][v] += old;
        }
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) __builtin_memcpy(c + r * ldc + v * W, &acc[r][v], sizeof(V));
    }
    return;
  }
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) __builtin_memcpy(tile + r * NR + v * W, &acc[r][v], sizeof(V));
  }
#else
  for (int e = 0; e < MR * NR; ++e) tile[e] = T(0);
  for (std::int64_t p = 0; p < kc; ++p, a += a_step, b += b_step) {
    for (int r = 0; r < MR; ++r) {
      for (int j = 0; j < NR; ++j) tile[r * NR + j] += (DirectA ? a[r * lda] : a[r]) * b[j];
    }
  }
  for (int e = 0; e < MR * NR; ++e) tile[e] *= alpha;
#endif
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < cols; ++j)
      c[r * ldc + j] = load_c ? c[r * ldc + j] + tile[r * NR + j] : tile[r * NR + j];
  }
}

// One tile of C of type T from panels of operand type S: the same type, or bfloat16 into float
// (packed B, tiles of MR rows and whole vectors only). ask_b: micro_kernel's AskB, chosen here
// so that each k loop is compiled with or without the prefetches (a run-time test inside it
// kept their addresses on the stack and ran no faster than none).
template <bool DirectA, int NV, int MT, bool DirectB, int VB, int PR, class S, class T>
inline void tile_product(std::int64_t kc, const S* a, const S* b, std::int64_t ldb, T* c, std::int64_t ldc,
                         int rows, int cols, bool load_c, T alpha, std::int64_t lda, bool ask_b) {
  if constexpr (std::is_same_v<S, T>) {
    if constexpr (DirectA && DirectB) {
      if (ask_b) {
        micro_kernel<T, DirectA, NV, MT, DirectB, VB, PR, true>(kc, a, b, c, ldc, rows, cols, load_c, alpha,
                                                                lda, ldb);
        return;
      }
    }
    micro_kernel<T, DirectA, NV, MT, DirectB, VB, PR>(kc, a, b, c, ldc, rows, cols, load_c, alpha, lda, ldb);
  } else if constexpr (!DirectB && MT == HostTile<T>::MR && PR == MT && VB == kHostVectorBytes) {
#if defined(MINIGPU_HOST_BF16_DOT)
    micro_kernel_bf16<HostTile<T>::MR, HostTile<T>::NR, DirectA, NV>(kc, a, b, c, ldc, rows, cols, load_c,
                                                                     alpha, lda);
#else
    std::abort();  // gemm_host's static_assert admits bfloat16 only where the dot product exists
#endif
  } else {
    // Instantiated (gemm_host picks the tile at run time) but never called: bfloat16's B is always
    // packed (direct_b needs S == T), its last rows padded to MR and its last columns to a whole
    // vector (tails need S == T). A call would leave C's tile unwritten, so it stops the program.
    std::abort();
  }
}

// Whether `rows` of A (rows <= MR) are read in place when A is: a full MR, or exactly one of the
// shorter tiles (a tile reads all its rows, so 3 rows in place would read a 4th past A's end).
template <class S, class T>
constexpr bool rows_in_place(std::int64_t rows) {
  using Tile = HostTile<T>;
  return rows == Tile::MR || (std::is_same_v<S, T> && (rows == Tile::M1 || rows == Tile::M2));
}

// C's tiles of rows in a block of `rows` rows, as the native GEMM cuts them: MR rows each from
// the top, the last one shorter, except that where A is read in place (split_allowed) the last
// MR + M1 rows run as two tiles of M2 (m = 64: 12·4 + 8 + 8, not 12·5 + 4). A tile of M1 rows
// has too few accumulators to hide the FMA's latency, and ran at 75 % of the rate of a full one.
// gemm_host_blocked and gemm_host_small both cut C's rows with this, so their tiles are the same.
template <class Tile>
struct RowTiles {
  std::int64_t rows, count;  // count: MR-row panels, and as many tiles
  bool split_tail;
  RowTiles(const std::int64_t rows_, const bool split_allowed)
      : rows(rows_), count((rows_ + Tile::MR - 1) / Tile::MR),
        split_tail(split_allowed && count >= 2 && rows_ - (count - 1) * Tile::MR == Tile::M1) {}
  bool in_tail(const std::int64_t i) const { return split_tail && i >= count - 2; }
  // The leading tiles of MR rows each; those after them are shorter.
  std::int64_t full_tiles() const { return split_tail ? count - 2 : rows / Tile::MR; }
  std::int64_t first_row(const std::int64_t i) const {
    return in_tail(i) ? (count - 2) * Tile::MR + (i - (count - 2)) * Tile::M2 : i * Tile::MR;
  }
  int height(const std::int64_t i) const {
    return in_tail(i) ? Tile::M2 : static_cast<int>(std::min<std::int64_t>(Tile::MR, rows - i * Tile::MR));
  }
};

// The columns of a panel of B that the tile for `cols` of them reads, operands and C of type
// T: half a vector, one, or all NR (the build without vector types reads all NR). pack_b_panel
// pads a ragged panel with zeros as far as this. (`cols` is unused in the build without them.)
template <class T>
constexpr int columns_read([[maybe_unused]] int cols) {
#if defined(MINIGPU_HOST_VECTOR_TYPES)
  constexpr int W = HostTile<T>::W;
  if (kHostVectorBytes >= 32 && cols <= W / 2) return W / 2;
  if (cols <= W) return W;
#endif
  return HostTile<T>::NR;
}

// The tile for `rows` × `cols` of C, in MT rows: half a vector of B's panel, or one, where `cols`
// fit in it (columns_read); all of the panel's vectors otherwise.
template <bool DirectA, bool DirectB, int MT, int PR, class S, class T>
inline void tile_width(std::int64_t kc, const S* a, const S* b, std::int64_t ldb, T* c, std::int64_t ldc,
                       int rows, int cols, bool load_c, T alpha, std::int64_t lda, bool ask_b) {
  constexpr int V = kHostVectorBytes, NV = HostTile<T>::NV, W = HostTile<T>::W;
  if (std::is_same_v<S, T> && columns_read<T>(cols) == W / 2) {
    tile_product<DirectA, 1, MT, DirectB, V / 2, PR>(kc, a, b, ldb, c, ldc, rows, cols, load_c, alpha, lda,
                                                     ask_b);
  } else if (cols <= W) {
    tile_product<DirectA, 1, MT, DirectB, V, PR>(kc, a, b, ldb, c, ldc, rows, cols, load_c, alpha, lda,
                                                 ask_b);
  } else {
    tile_product<DirectA, NV, MT, DirectB, V, PR>(kc, a, b, ldb, c, ldc, rows, cols, load_c, alpha, lda,
                                                  ask_b);
  }
}

// The tile for `rows` × `cols` of C, of a tile PR rows high: for the last rows of C, a tile of
// PR/3 or 2·PR/3 rows where they fit in one (exactly, when read in place).
template <bool DirectA, bool DirectB, int PR, class S, class T>
inline void tile_for(std::int64_t kc, const S* a, const S* b, std::int64_t ldb, T* c, std::int64_t ldc,
                     int rows, int cols, bool load_c, T alpha, std::int64_t lda, bool ask_b = false) {
  using Tile = HostTile<T, PR>;
  constexpr int M1 = Tile::M1, M2 = Tile::M2;
  constexpr bool tails = std::is_same_v<S, T>;
  if (tails && (DirectA ? rows == M1 : rows <= M1)) {
    return tile_width<DirectA, DirectB, M1, PR>(kc, a, b, ldb, c, ldc, rows, cols, load_c, alpha, lda, ask_b);
  }
  if (tails && (DirectA ? rows == M2 : rows <= M2)) {
    return tile_width<DirectA, DirectB, M2, PR>(kc, a, b, ldb, c, ldc, rows, cols, load_c, alpha, lda, ask_b);
  }
  tile_width<DirectA, DirectB, PR, PR>(kc, a, b, ldb, c, ldc, rows, cols, load_c, alpha, lda, ask_b);
}

}  // namespace minigpu::kernels::detail
