#include "blis_peer.hpp"

#include <dlfcn.h>

namespace minigpu::bench {

const BlisPeer& BlisPeer::instance() {
  static const BlisPeer peer;
  return peer;
}

BlisPeer::BlisPeer() {
  // RTLD_LOCAL: BLIS's symbols stay out of the process's global scope, so OpenBLAS's callers
  // (miniGPU's `vendor`, the `blas` rows) keep calling OpenBLAS.
  void* lib = dlopen("libblis.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    why_not_ = std::string("libblis.so.4 not found (apt-get install libblis-openmp-dev): ") + dlerror();
    return;
  }
  const auto symbol = [lib](const char* name) { return dlsym(lib, name); };
  const auto int_size = reinterpret_cast<std::int64_t (*)()>(symbol("bli_info_get_int_type_size"));
  const auto version = reinterpret_cast<const char* (*)()>(symbol("bli_info_get_version_str"));
  const auto arch_id = reinterpret_cast<int (*)()>(symbol("bli_arch_query_id"));
  const auto arch_name = reinterpret_cast<const char* (*)(int)>(symbol("bli_arch_string"));
  if (!int_size || !version || !arch_id || !arch_name) {
    why_not_ = "libblis.so.4 lacks BLIS's query functions";
    return;
  }
  if (int_size() != 64) {
    why_not_ = "this BLIS was built with " + std::to_string(int_size()) + "-bit integers, not 64";
    return;
  }
  version_ = version();
  arch_ = arch_name(arch_id());
  set_threads_ = reinterpret_cast<SetThreads>(symbol("bli_thread_set_num_threads"));
  dgemm_ = reinterpret_cast<DGemm>(symbol("bli_dgemm"));
  sgemm_ = dgemm_ && set_threads_ ? reinterpret_cast<SGemm>(symbol("bli_sgemm")) : nullptr;
  if (!sgemm_) why_not_ = "libblis.so.4 lacks bli_sgemm, bli_dgemm or bli_thread_set_num_threads";
}

std::string BlisPeer::describe() const {
  if (!available()) return "BLIS unavailable: " + why_not_;
  return "BLIS " + version_ + " (" + arch_ + " kernels, " + std::to_string(threads_) + " thread(s))";
}

void BlisPeer::set_threads(int threads) const {
  if (!available()) return;
  set_threads_(threads);
  threads_ = threads;
}

template <class T, class Fn>
void BlisPeer::call(Fn fn, const T* a, const T* b, T* c, std::int64_t n, T alpha) {
  const T beta = 0;
  // Row-major: row stride n, column stride 1 (BLIS takes both strides directly).
  fn(0, 0, n, n, n, &alpha, a, n, 1, b, n, 1, &beta, c, n, 1);
}

void BlisPeer::gemm(const float* a, const float* b, float* c, std::int64_t n, float alpha) const {
  call(sgemm_, a, b, c, n, alpha);
}

void BlisPeer::gemm(const double* a, const double* b, double* c, std::int64_t n, double alpha) const {
  call(dgemm_, a, b, c, n, alpha);
}

}  // namespace minigpu::bench
