// The widest streaming store this build may use; the choice is made by the compiler flags
// (-march=native by default), like the vector width of the native GEMM.
#include "core/streaming_store.hpp"

#include "core/cpu_info.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace minigpu {
namespace {

constexpr std::size_t kLine = 64;

// One 64-byte line from src (any alignment) to dst (64-byte aligned), bypassing the caches.
inline void stream_line(char* dst, const char* src) {
#if defined(__AVX512F__)
  _mm512_stream_si512(reinterpret_cast<__m512i*>(dst), _mm512_loadu_si512(src));
#elif defined(__AVX__)
  for (std::size_t k = 0; k < kLine; k += 32) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + k),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k)));
  }
#elif defined(__SSE2__)
  for (std::size_t k = 0; k < kLine; k += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k)));
  }
#else
  std::memcpy(dst, src, kLine);
#endif
}

}  // namespace

std::int64_t streaming_store_min_bytes() {
  static const std::int64_t bytes = cpu_caches().l3 * 3 / 8;
  return bytes;
}

void stream_to(void* dst, const void* src, std::size_t bytes) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const std::size_t head = (kLine - reinterpret_cast<std::uintptr_t>(d) % kLine) % kLine;
  if (head >= bytes) {
    std::memcpy(d, s, bytes);
    return;
  }
  std::memcpy(d, s, head);
  std::size_t i = head;
  for (; i + kLine <= bytes; i += kLine) stream_line(d + i, s + i);
  std::memcpy(d + i, s + i, bytes - i);
}

void streaming_store_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace minigpu
