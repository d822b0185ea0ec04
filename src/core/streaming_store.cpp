// When to stream, and the fence that orders streamed lines. The line store itself is inline in
// the header, so that callers stream from the register they computed a line in.
#include "core/streaming_store.hpp"

#include "core/cpu_info.hpp"

namespace minigpu {

std::int64_t streaming_store_min_bytes() {
  static const std::int64_t bytes = cpu_caches().l3 / 4;
  return bytes;
}

bool stream_four_pages_at_once() { return cpu_is_intel(); }

void streaming_store_fence() {
#if defined(MINIGPU_STREAMING_STORES)
  _mm_sfence();
#endif
}

}  // namespace minigpu
