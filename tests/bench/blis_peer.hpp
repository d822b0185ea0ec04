// BLIS as a second BLAS peer for scripts/dev/bench.sh's GEMM pairs: where Debian's libblis.so.4
// is installed and beats OpenBLAS on this CPU, native / the best BLAS compares with it.
// Opened at run time through BLIS's own typed API (bli_?gemm), whose names OpenBLAS does not
// define, so no call of BLIS's ends up in OpenBLAS (its cblas_?gemm would: BLIS's CBLAS layer
// calls sgemm_/dgemm_, which the process already has from OpenBLAS).
#pragma once

#include <cstdint>
#include <string>

namespace minigpu::bench {

class BlisPeer {
 public:
  /// libblis.so.4 opened, or why not (`available()` false).
  static const BlisPeer& instance();

  bool available() const { return sgemm_ != nullptr; }
  const std::string& why_not() const { return why_not_; }
  /// "BLIS 0.9.0 (haswell kernels, 2 thread(s))": library, version, the kernel set it chose.
  std::string describe() const;
  /// BLIS's own thread count for the products that follow (the bench's, as for OpenBLAS).
  void set_threads(int threads) const;

  /// C = alpha A B for row-major n x n matrices.
  void gemm(const float* a, const float* b, float* c, std::int64_t n, float alpha) const;
  void gemm(const double* a, const double* b, double* c, std::int64_t n, double alpha) const;

 private:
  BlisPeer();
  template <class T, class Fn>
  static void call(Fn fn, const T* a, const T* b, T* c, std::int64_t n, T alpha);

  // bli_?gemm(transa, transb, m, n, k, alpha, a, rsa, csa, b, rsb, csb, beta, c, rsc, csc):
  // trans_t is an enum (0: no transpose), dim_t and inc_t BLIS's 64-bit integers (checked).
  using SGemm = void (*)(int, int, std::int64_t, std::int64_t, std::int64_t, const float*, const float*,
                         std::int64_t, std::int64_t, const float*, std::int64_t, std::int64_t, const float*,
                         float*, std::int64_t, std::int64_t);
  using DGemm = void (*)(int, int, std::int64_t, std::int64_t, std::int64_t, const double*, const double*,
                         std::int64_t, std::int64_t, const double*, std::int64_t, std::int64_t, const double*,
                         double*, std::int64_t, std::int64_t);
  using SetThreads = void (*)(std::int64_t);
  SGemm sgemm_ = nullptr;
  DGemm dgemm_ = nullptr;
  SetThreads set_threads_ = nullptr;
  std::string version_, arch_, why_not_;
  mutable int threads_ = 1;
};

}  // namespace minigpu::bench
