// Elementwise kernels over flat Views: maps, broadcast binaries and deterministic fills, and a
// host check of a map against the host's own reference on an even sample of elements.
// Pure Kokkos: each runs in the execution space of the View it writes; large host maps
// stream their output past the caches (core/streaming_store.hpp).
#pragma once

#include "core/backend.hpp"
#include "core/kokkos_compat.hpp"
#include "core/streaming_store.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace minigpu::kernels {

template <class View>
using RangeOf = Kokkos::RangePolicy<typename View::execution_space, Kokkos::IndexType<std::int64_t>>;

/// Host passes over fewer elements than this run on the calling thread alone: waking the other
/// threads costs a few µs, more than the pass (PyTorch's grain for intra-op parallelism is the
/// same 32768). The logging step's norm and scaling of 10^4 elements took longer on 2 threads.
inline constexpr std::int64_t kHostSerialGrain = 32768;
using OneThreadRange = Kokkos::RangePolicy<OneThreadExecSpace, Kokkos::IndexType<std::int64_t>>;

/// Whether a pass over `elements` of `view` should run on the one-thread space (host memory, and
/// small enough to spare the other threads' wake-up, or a host space of one thread anyway: with
/// OMP_NUM_THREADS=1 each OpenMP launch still opened a parallel region, 0.37 µs where Serial's
/// took 0.04, a third of the logging step's norm).
template <class View>
bool one_thread_suffices(const View&, std::int64_t elements) {
  if constexpr (Kokkos::SpaceAccessibility<typename View::execution_space, Kokkos::HostSpace>::accessible) {
    // A small pass asks no more: an instance made to ask its concurrency costs a heap allocation
    // and two atomic counts in Kokkos 4.6, on every launch of the logging step's norm.
    if (!kHasOneThreadExecSpace) return false;
    if (elements < kHostSerialGrain) return true;
    return typename View::execution_space().concurrency() == 1;
  } else {
    return false;
  }
}

struct Add {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b) const {
    return a + b;
  }
};
struct Sub {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b) const {
    return a - b;
  }
};
struct Mul {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b) const {
    return a * b;
  }
};
struct Div {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b) const {
    return a / b;
  }
};
struct Pow {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T a, T b) const {
    return kmath::pow(a, b);
  }
};
struct Exp {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T a) const {
    return kmath::exp(a);
  }
};
/// op(x, s) or op(s, x) for a fixed scalar s: scalar operands become unary maps.
template <class Op, class T, bool ScalarOnLeft>
struct WithScalar {
  Op op;
  T scalar;
  KOKKOS_INLINE_FUNCTION T operator()(T x) const { return ScalarOnLeft ? op(scalar, x) : op(x, scalar); }
};

/// The launch of out(i) = value(i) on host memory with streaming stores
/// (core/streaming_store.hpp), for the caller to label: each 64-byte line of results is computed
/// into a local array, which the compiler keeps in a vector register, and streamed out from
/// there; the ragged ends before the first and after the last whole line take ordinary stores.
/// A line is computed before it is written, so in-place passes work. (Computing 1 KiB into an
/// L1 buffer and streaming that out, as this did before, cost the triad 9-12 %: stream_line.)
/// Pages > 1: the lines are visited Pages 4 KiB pages at a time, a line of each in turn, as
/// glibc's large memcpy does. A core's prefetchers stop at the end of a 4 KiB page, so on
/// ordinary pages a single stream waits at each new one; several pages in flight hide that, on
/// Intel's cores (a Zen 5 core ran one stream faster: stream_four_pages_at_once). The fused lazy
/// chain (one input) on 4 KiB pages went from 17.9-18.6 to 22.5-24.3 GB/s on 1 thread and from
/// 35.4-36.8 to 46.5-46.9 on 2 with 4 pages (glibc's memcpy 21.1-22.8 / 26.8-28.0 in the same
/// minutes; 2-core Xeon VM, 2026-12-01);
/// on 2 MiB pages it ran level, while the triad (two inputs, 12 streams) lost 12 % there.
/// No software prefetch of the inputs: asked for 1 KiB ahead of each line, the triad read
/// 1.01-1.02x on the Xeon VM and 0.86-0.94x on Zen 5 (docs/performance.md, 2026-12-03/04).
template <int Pages = 1, class OutView, class Value>
auto streaming_launch(const OutView& out, Value value) {
  using T = typename OutView::non_const_value_type;
  static_assert(kStreamLineBytes % sizeof(T) == 0, "streaming_launch: a line holds whole elements");
  constexpr std::int64_t kLineElems = kStreamLineBytes / sizeof(T);
  constexpr std::int64_t kBlock = 256 * 1024 / sizeof(T);  // a parallel iteration: one fence per 256 KiB
  const std::int64_t n = out.extent(0);
  T* const o = out.data();
  // A host lambda, not KOKKOS_LAMBDA: it calls host-only intrinsics through stream_line.
  const auto block = [=](const std::int64_t b) {
    // The captures as locals: the closure is reached through a pointer, and a store through a T*
    // may alias its members, so the compiler reloads them after every line it writes. On 2
    // threads that cost a streamed pass 5 % (the same loop as a plain OpenMP loop, 2-core Xeon VM,
    // 2026-12-01: 45.0-45.8 against 47.6-48.3 GB/s; with the locals 43.1-43.6 against 43.6-43.9).
    T* const o_ = o;
    const Value value_ = value;
    const std::int64_t end = b * kBlock + kBlock < n ? b * kBlock + kBlock : n;
    std::int64_t i = b * kBlock;
    for (; i < end && reinterpret_cast<std::uintptr_t>(o_ + i) % kStreamLineBytes != 0; ++i)
      o_[i] = value_(i);
    constexpr std::int64_t kPageElems = 4096 / sizeof(T);
    // Pages chunks of 4 KiB from the (64-byte aligned) i on, while the block has them whole.
    for (; Pages > 1 && i + Pages * kPageElems <= end; i += Pages * kPageElems) {
      for (std::int64_t l = 0; l < kPageElems; l += kLineElems) {
        for (std::int64_t page = 0; page < Pages; ++page) {
          const std::int64_t j = i + page * kPageElems + l;
          alignas(kStreamLineBytes) T line[kLineElems];
          MINIGPU_ROLLED_LOOP
          for (std::int64_t k = 0; k < kLineElems; ++k) line[k] = value_(j + k);
          stream_line(o_ + j, line);
        }
      }
    }
    for (; i + kLineElems <= end; i += kLineElems) {
      alignas(kStreamLineBytes) T line[kLineElems];
      MINIGPU_ROLLED_LOOP
      for (std::int64_t k = 0; k < kLineElems; ++k) line[k] = value_(i + k);
      stream_line(o_ + i, line);
    }
    for (; i < end; ++i) o_[i] = value_(i);
    streaming_store_fence();
  };
  return std::make_pair(RangeOf<OutView>(0, (n + kBlock - 1) / kBlock), block);
}

/// Whether a pass writing `out` from `in...` should stream: host memory, an output too large
/// to stay in cache, and contiguous Views (the streamed pass indexes their data() directly).
template <class OutView, class... InViews>
bool streams_on_host(const OutView& out, const InViews&... in) {
  if constexpr (Kokkos::SpaceAccessibility<typename OutView::execution_space,
                                           Kokkos::HostSpace>::accessible) {
    const std::int64_t bytes = out.extent(0) * std::int64_t(sizeof(typename OutView::value_type));
    return bytes >= streaming_store_min_bytes() && out.span_is_contiguous() &&
           (in.span_is_contiguous() && ...);
  } else {
    return false;
  }
}

/// out(i) = f(in(i)) with streaming stores: host memory only. Four pages at a time or one
/// stream as the CPU runs faster (core/streaming_store.hpp); tests ask for each.
template <class OutView, class InView, class F>
void map_streaming(const OutView& out, const InView& in, F f,
                   const bool four_pages = stream_four_pages_at_once()) {
  const auto* const x = in.data();
  const auto value = [=](const std::int64_t i) { return f(x[i]); };
  if (four_pages) {
    const auto [range, block] = streaming_launch<4>(out, value);
    Kokkos::parallel_for("elementwise::map", range, block);
  } else {
    const auto [range, block] = streaming_launch<1>(out, value);
    Kokkos::parallel_for("elementwise::map", range, block);
  }
}

/// map's body as a functor, not a KOKKOS_LAMBDA: map<> is instantiated alike in several
/// translation units (bfloat16 to float for cuBLAS in core/, for the widened native GEMM in
/// kernels/), and nvcc's wrapper of a host-device lambda calls through a pointer that only the
/// unit making the lambda sets, while the linker keeps one unit's instantiation. On an H200 the
/// kept one was a unit whose pointer was null: `test_logging`'s bfloat16 `auto` case called
/// address 0 from map<View<float*, CudaSpace>, View<bfloat16*, CudaSpace>, ConvertTo<float>>
/// (2026-11-27, third run; the second run met the same in WidenedMatmul).
template <class OutView, class InView, class F>
struct MapBody {
  OutView out;
  InView in;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { out(i) = f(in(i)); }
};

/// out(i) = f(in(i)). On the host, an output too large to stay in cache is streamed.
template <class OutView, class InView, class F>
void map(const OutView& out, const InView& in, F f) {
  const std::int64_t n = out.extent(0);
  if constexpr (Kokkos::SpaceAccessibility<typename OutView::execution_space,
                                           Kokkos::HostSpace>::accessible) {
    if (streams_on_host(out, in)) return map_streaming(out, in, f);
    if (one_thread_suffices(out, n)) {
      return Kokkos::parallel_for("elementwise::map", OneThreadRange(0, n),
                                  [=](const std::int64_t i) { out(i) = f(in(i)); });
    }
  }
  Kokkos::parallel_for("elementwise::map", RangeOf<OutView>(0, n), MapBody<OutView, InView, F>{out, in, f});
}

/// Row-major 2-D index arithmetic for broadcasting: a stride of 0 repeats a row or column.
struct BroadcastStrides {
  std::int64_t cols = 1;
  std::int64_t a_row = 0, a_col = 0;
  std::int64_t b_row = 0, b_col = 0;
};

// The kernels below are functors, not KOKKOS_LAMBDAs, for the reason MapBody gives: a header's
// template is instantiated alike in several units, and nvcc's lambda wrapper works only in the
// unit that made it.

/// binary's body: out(i) = op(a(…), b(…)) at the broadcast position of flat index i.
template <class OutView, class AView, class BView, class Op>
struct BinaryBody {
  OutView out;
  AView a;
  BView b;
  BroadcastStrides s;
  Op op;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t r = i / s.cols;
    const std::int64_t c = i % s.cols;
    out(i) = op(a(r * s.a_row + c * s.a_col), b(r * s.b_row + c * s.b_col));
  }
};

/// out(r, c) = op(a(r, c), b(r, c)) with broadcasting given by `s`, over flat storage.
template <class OutView, class AView, class BView, class Op>
void binary(const OutView& out, const AView& a, const BView& b, BroadcastStrides s, Op op) {
  Kokkos::parallel_for("elementwise::binary", RangeOf<OutView>(0, out.extent(0)),
                       BinaryBody<OutView, AView, BView, Op>{out, a, b, s, op});
}

/// SplitMix64 finaliser: a counter-based generator, so element i gets the same value
/// whichever device or thread computes it.
KOKKOS_INLINE_FUNCTION std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// fill_uniform's body: the top `bits` of element i's hash, scaled into [low, high).
template <class View, class T, int Bits>
struct FillUniformBody {
  View out;
  std::uint64_t key;
  T scale, low, high;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::uint64_t r = splitmix64(key ^ static_cast<std::uint64_t>(i) * 0xD1B54A32D192ED03ULL);
    const T u = static_cast<T>(r >> (64 - Bits)) * scale;
    out(i) = static_cast<typename View::non_const_value_type>(low + (high - low) * u);  // may round (16-bit)
  }
};

/// Uniform values in [low, high): element i depends only on (seed, i).
template <class View, class T>
void fill_uniform(const View& out, std::uint64_t seed, T low, T high) {
  // Keep as many random bits as the mantissa holds, so u < 1 exactly in type T.
  constexpr int bits = sizeof(T) == 4 ? 24 : 53;
  const T scale = T(1) / static_cast<T>(std::uint64_t(1) << bits);
  const std::uint64_t key = splitmix64(seed);
  Kokkos::parallel_for("fill::uniform", RangeOf<View>(0, out.extent(0)),
                       FillUniformBody<View, T, bits>{out, key, scale, low, high});
}

/// fill_affine's body: out(i) = start + i * step, or `last` at i = n − 1 when `pin_last`.
template <class View, class T>
struct FillAffineBody {
  View out;
  T start, step;
  bool pin_last;
  T last;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    out(i) = (pin_last && i == n - 1) ? last : start + static_cast<T>(i) * step;
  }
};

/// out(i) = start + i * step, with out(n-1) forced to `last` when `pin_last` (linspace).
template <class View, class T>
void fill_affine(const View& out, T start, T step, bool pin_last, T last) {
  const std::int64_t n = out.extent(0);
  Kokkos::parallel_for("fill::affine", RangeOf<View>(0, n),
                       FillAffineBody<View, T>{out, start, step, pin_last, last, n});
}

/// How far out(i) is from f(in(i)), f the host's own reference of a map: the largest
/// |out(i) − f(in(i))| over every max(1, n/max_samples)-th of n elements and the last, and how
/// many were compared. NaN once a difference is NaN. A host function, for host Views.
struct SampledError {
  double worst = 0;
  std::int64_t compared = 0;
};
template <class InView, class OutView, class F>
SampledError sampled_max_abs_error(const InView& in, const OutView& out, F f, std::int64_t max_samples) {
  const auto n = static_cast<std::int64_t>(in.extent(0));
  const std::int64_t stride = std::max<std::int64_t>(1, n / max_samples);
  SampledError e;
  const auto compare = [&](std::int64_t i) {
    const double err = std::abs(static_cast<double>(out(i)) - static_cast<double>(f(in(i))));
    e.worst = std::isnan(err) ? err : std::max(e.worst, err);
    ++e.compared;
  };
  for (std::int64_t i = 0; i < n; i += stride) compare(i);
  if ((n - 1) % stride != 0) compare(n - 1);
  return e;
}

}  // namespace minigpu::kernels
