// Streaming (non-temporal) stores for host memory. A pass that writes an array larger than the
// last-level cache gains nothing from keeping its output in cache, yet an ordinary store first
// reads each line it writes (write-allocate): 3 transfers per element of a copy-like pass where
// memcpy, which streams, makes 2. Measured on a 2-core Xeon VM (AVX-512, 2^25 and 2^26
// elements): the fused lazy chain's loop ran at 0.46–0.60 of memcpy with ordinary stores,
// 0.90–1.07 streamed through a 1 KiB buffer, and faster again streamed line by line from registers
// (stream_line). The store's width is chosen by the compiler flags (-march=native by default), like
// the vector width of the native GEMM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

// Host passes only: a GPU compiler's device pass sees the plain copy below (the callers are host
// code, never compiled for the device).
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && !defined(__SYCL_DEVICE_ONLY__) && \
    defined(__SSE2__)
#include <immintrin.h>
#define MINIGPU_STREAMING_STORES 1
#endif

namespace minigpu {

/// Outputs of at least this many bytes are worth streaming: where glibc's memcpy streams on this
/// CPU (x86_non_temporal_threshold, or GLIBC_TUNABLES' setting of it), so that a pass and the
/// memcpy it is compared with switch together. Its rule (glibc_streaming.cpp) is a quarter of the
/// L3 or more, and no fixed share follows it: 3/8 of the L3 ran a Zen 5 VM's float32 triad
/// (128 MiB arrays; glibc streamed from 127 MiB) with ordinary stores at 0.75 of float64's GB/s,
/// and a quarter missed glibc's 3/4 on a Zen 4 VM (2026-12-04, the same glibc).
std::int64_t streaming_store_min_bytes();

/// GLIBC_TUNABLES' glibc.cpu.x86_non_temporal_threshold in `tunables` (the variable's value), the
/// last one glibc would accept (above its minimum, 0x4040); -1 where there is none.
std::int64_t glibc_tuned_threshold(const char* tunables);

/// Bytes in one streamed line: a cache line, and a whole AVX-512 register.
inline constexpr std::size_t kStreamLineBytes = 64;

/// One 64-byte line from `src` (any alignment) to `dst` (64-byte aligned), bypassing the caches.
/// Inline, so that a line a caller computes into a local array is streamed from the registers it
/// was computed in: computing 1 KiB into a buffer and streaming that out ran the triad at
/// 0.88-0.91 of this (2-core Zen 5 VM, 2026-11-30: 40-42 against 43-45 GB/s on 1 thread, 77-80
/// against 86-89 on 2, on 3 x 256 MiB).
/// Two 32-byte stores where the build has AVX, AVX-512 included: GCC and Clang compute a line in
/// 32-byte vectors on AVX-512 CPUs (their tuning prefers 256 bits), and where the line was then
/// read back as one 64-byte register, the read needed two stores' data, which the core cannot
/// forward from its store buffer: it waits for both to reach L1. A 2-core Xeon VM (AVX-512, AMX;
/// 2026-12-01) ran the triad on 2 threads at 37-39 GB/s against 40-43 for a plain C loop
/// storing 64 bytes at once; 32-byte reads of a 64-byte store forward where a build computes in
/// 64-byte vectors. The lines reach memory whole either way (likwid-bench's 16-, 32- and 64-byte
/// streaming triads ran within 8 % of each other there, the 16-byte one fastest).
inline void stream_line(void* dst, const void* src) {
#if defined(MINIGPU_STREAMING_STORES) && defined(__AVX__)
  auto* d = static_cast<__m256i*>(dst);
  const auto* s = static_cast<const __m256i*>(src);
  _mm256_stream_si256(d, _mm256_loadu_si256(s));
  _mm256_stream_si256(d + 1, _mm256_loadu_si256(s + 1));
#elif defined(MINIGPU_STREAMING_STORES)
  auto* d = static_cast<__m128i*>(dst);
  const auto* s = static_cast<const __m128i*>(src);
  for (int k = 0; k < 4; ++k) _mm_stream_si128(d + k, _mm_loadu_si128(s + k));
#else
  std::memcpy(dst, src, kStreamLineBytes);
#endif
}

/// Whether a streamed one-input pass (kernels::map_streaming) should walk four 4 KiB pages at
/// once, a line of each in turn, as glibc's large memcpy does, rather than one stream. On Intel's
/// cores, whose prefetchers stop at a page's end, four pages ran the fused lazy chain 25 % faster
/// (2-core Xeon VM, 2026-12-01: 17.9-18.6 → 22.5-24.3 GB/s on 1 thread); on Zen 5 cores one
/// stream ran it 7-16 % faster than four, on small pages and huge ones alike (2-core EPYC VM,
/// 2026-12-04: medians of 21 calls alternating, 1 and 2 threads, float32 and float64). So four
/// on Intel's CPUs and one elsewhere, as the native GEMM's blocking also tells them apart.
bool stream_four_pages_at_once();

/// Orders the streaming stores issued so far by this thread before any later store.
void streaming_store_fence();

}  // namespace minigpu
