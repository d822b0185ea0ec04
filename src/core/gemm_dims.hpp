// The shape of one matrix product over row-major storage, shared by the kernels and the
// vendor BLAS calls in the backend layer.
#pragma once

#include <cstdint>

namespace minigpu {

/// C(m×n) and A(m×k)·B(k×n) inside row-major storage whose rows are lda, ldb, ldc long.
struct GemmDims {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
};

/// Which matrix multiply runs: the vendor BLAS (what a user would call) or miniGPU's own
/// kernel (`native`), to see how close a hand-written one comes.
enum class GemmKernel { vendor, native };
inline const char* to_string(GemmKernel k) { return k == GemmKernel::vendor ? "vendor" : "native"; }

/// What an input asks for: one kernel by name, or `automatic` (the default everywhere): the
/// faster of the two as measured on this host and build (gemm/choice.hpp).
enum class GemmChoice { automatic, vendor, native };
inline const char* to_string(GemmChoice c) {
  return c == GemmChoice::automatic ? "auto" : c == GemmChoice::vendor ? "vendor" : "native";
}

/// Flops of one m×k by k×n product: a multiply and an add per term, 2·m·n·k.
inline double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

/// The dims of a dense product of contiguous row-major matrices: lda = k, ldb = ldc = n.
inline GemmDims dense_gemm(std::int64_t m, std::int64_t n, std::int64_t k) { return {m, n, k, k, n, n}; }

}  // namespace minigpu
