// Matrices given by a formula of their global indices: any rank can build, or check against,
// any block of them without communication. Entries are small integers, so products and
// their partial sums are exact in float while |sum| < 2^24.
#pragma once

#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace minigpu::kernels {

/// Entry (i, j) of an n-column matrix: the value fill_small_integers(seed, radius 2) gives
/// flat element i·n + j, so a whole matrix filled that way is the same matrix.
struct SmallIntegerMatrix {
  std::uint64_t key = 0;
  std::int64_t cols = 0;

  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i, std::int64_t j) const {
    const std::uint64_t r =
        splitmix64(key ^ static_cast<std::uint64_t>(i * cols + j) * 0xD1B54A32D192ED03ULL);
    return static_cast<double>(static_cast<std::int64_t>(r % 5) - 2);
  }
};

inline SmallIntegerMatrix small_integer_matrix(std::uint64_t seed, std::int64_t cols) {
  return {splitmix64(seed), cols};
}

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// fill_generated_block's body: out(e) = gen(row0 + e / cols, col0 + e % cols).
template <class View>
struct FillGeneratedBlockBody {
  View out;
  SmallIntegerMatrix gen;
  std::int64_t row0, col0, cols;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t e) const {
    using T = typename View::non_const_value_type;
    out(e) = static_cast<T>(gen(row0 + e / cols, col0 + e % cols));
  }
};

/// out(r·cols + q) = gen(row0 + r, col0 + q): a rank's own rows×cols block.
template <class View>
void fill_generated_block(const View& out, SmallIntegerMatrix gen, std::int64_t row0, std::int64_t col0,
                          std::int64_t rows, std::int64_t cols) {
  Kokkos::parallel_for("fill::generated_block", RangeOf<View>(0, rows * cols),
                       FillGeneratedBlockBody<View>{out, gen, row0, col0, cols});
}

/// generated_matvec_rows's body: y(row0 + r) = sum_p gen(row0 + r, p)·x(p).
template <class YView, class XView>
struct GeneratedMatvecRowsBody {
  YView y;
  SmallIntegerMatrix gen;
  XView x;
  std::int64_t row0, k;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    double acc = 0;
    for (std::int64_t p = 0; p < k; ++p) acc += gen(row0 + r, p) * x(p);
    y(row0 + r) = acc;
  }
};

/// y(i) = sum_p gen(i, p)·x(p) for rows i in [row0, row0 + rows) of a k-column generated
/// matrix; other entries of y are left alone. Reads the formula, never stored blocks.
template <class YView, class XView>
void generated_matvec_rows(const YView& y, SmallIntegerMatrix gen, const XView& x, std::int64_t row0,
                           std::int64_t rows, std::int64_t k) {
  Kokkos::parallel_for("matvec::generated_rows", RangeOf<YView>(0, rows),
                       GeneratedMatvecRowsBody<YView, XView>{y, gen, x, row0, k});
}

/// block_matvec_add's body: y(row0 + r) += sum_q blk(r·cols + q)·x(col0 + q).
template <class YView, class BlockView, class XView>
struct BlockMatvecAddBody {
  YView y;
  BlockView blk;
  XView x;
  std::int64_t row0, col0, cols;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    double acc = 0;
    for (std::int64_t q = 0; q < cols; ++q) acc += static_cast<double>(blk(r * cols + q)) * x(col0 + q);
    y(row0 + r) += acc;
  }
};

/// y(row0 + r) += sum_q blk(r·cols + q)·x(col0 + q): a stored block's share of a global C·x.
template <class YView, class BlockView, class XView>
void block_matvec_add(const YView& y, const BlockView& blk, const XView& x, std::int64_t row0,
                      std::int64_t col0, std::int64_t rows, std::int64_t cols) {
  Kokkos::parallel_for("matvec::block_add", RangeOf<YView>(0, rows),
                       BlockMatvecAddBody<YView, BlockView, XView>{y, blk, x, row0, col0, cols});
}

}  // namespace minigpu::kernels
