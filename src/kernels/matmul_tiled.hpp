// Tiled matrix multiply: each team computes one Tile×Tile block of C, staging Tile×Tile
// blocks of A and B in team scratch (shared memory on a GPU) so each element of A and B is
// read from global memory n/Tile times instead of n times. flops = 2·m·n·k.
#pragma once

#include "kernels/gemm_block.hpp"

#include <cstdint>

namespace minigpu::kernels {

/// C = A·B with A m×k, B k×n, C m×n, all row-major and contiguous in flat Views; any sizes
/// (blocks that overhang the edge are zero-padded in scratch). The strided, accumulating
/// form is gemm_block_tiled, which the distributed products use for their blocks.
template <int Tile = 16, class CView, class AView, class BView>
void matmul_tiled(const CView& c, const AView& a, const BView& b, std::int64_t m, std::int64_t n,
                  std::int64_t k) {
  GemmDims d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.lda = k;
  d.ldb = n;
  d.ldc = n;
  gemm_block_tiled<Tile>(c, a, b, d, false);
}

}  // namespace minigpu::kernels
