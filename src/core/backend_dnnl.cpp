// oneDNN behind backend_blas.hpp's host_mixed_gemm: the bfloat16 matmul PyTorch's CPU path uses
// (Debian's libdnnl 2.6, OpenMP threads like Kokkos's host space). A matmul primitive is made per
// shape and kept per thread, as cuBLAS's handle is kept per process: making one (choosing the
// implementation for this CPU, its blocking) costs tens of µs, a 256³ product about a hundred.
#include "core/backend_blas.hpp"

#include <cstring>
#include <map>
#include <stdexcept>
#include <tuple>

#if defined(MINIGPU_HAVE_DNNL)
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace minigpu {

bool host_has_bf16_gemm() {
#if defined(MINIGPU_HAVE_DNNL) && defined(__x86_64__)
  // Without AVX512_BF16 oneDNN would emulate bfloat16 products at a fraction of float's rate.
  static const bool has = __builtin_cpu_supports("avx512bf16");
  return has;
#else
  return false;
#endif
}

std::string host_bf16_gemm_library() {
#if defined(MINIGPU_HAVE_DNNL)
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch);
#else
  return "";
#endif
}

#if defined(MINIGPU_HAVE_DNNL)
namespace {

using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;

struct Matmul {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul primitive;
};

struct DnnlContext {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::map<Key, Matmul> primitives;
};

const Matmul& primitive_for(DnnlContext& ctx, const GemmDims& d) {
  const Key key{d.m, d.n, d.k, d.lda, d.ldb, d.ldc};
  auto it = ctx.primitives.find(key);
  if (it != ctx.primitives.end()) return it->second;
  using md = dnnl::memory::desc;
  const auto bf16 = dnnl::memory::data_type::bf16;
  const md a({d.m, d.k}, bf16, {d.lda, 1}), b({d.k, d.n}, bf16, {d.ldb, 1}), c({d.m, d.n}, bf16, {d.ldc, 1});
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), ctx.engine);
  return ctx.primitives.emplace(key, Matmul{pd, dnnl::matmul(pd)}).first->second;
}

}  // namespace
#endif

void host_mixed_gemm(DType storage, const void* a, const void* b, void* c, const GemmDims& d) {
  if (storage != DType::bf16) throw std::logic_error("host_mixed_gemm: oneDNN serves bfloat16 only");
#if defined(MINIGPU_HAVE_DNNL)
  if (d.m == 0 || d.n == 0) return;
  if (d.k == 0) {  // an empty sum; bfloat16's 0 is all bits clear
    for (std::int64_t i = 0; i < d.m; ++i) std::memset(static_cast<char*>(c) + 2 * i * d.ldc, 0, 2 * d.n);
    return;
  }
  static thread_local DnnlContext ctx;
  const Matmul& mm = primitive_for(ctx, d);
  // oneDNN's memory objects take non-const handles; A and B are only read.
  dnnl::memory am(mm.pd.src_desc(), ctx.engine, const_cast<void*>(a));
  dnnl::memory bm(mm.pd.weights_desc(), ctx.engine, const_cast<void*>(b));
  dnnl::memory cm(mm.pd.dst_desc(), ctx.engine, c);
  mm.primitive.execute(ctx.stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  ctx.stream.wait();
#else
  (void)a, (void)b, (void)c, (void)d;
  throw std::logic_error("host_mixed_gemm: this build links no oneDNN");
#endif
}

}  // namespace minigpu
