// How to stream, and the fence that orders streamed lines. The line store itself is inline in
// the header, so that callers stream from the register they computed a line in; when to stream is
// glibc's rule (glibc_streaming.cpp).
#include "core/streaming_store.hpp"

#include "core/cpu_info.hpp"

namespace minigpu {

bool stream_four_pages_at_once() { return cpu_is_intel(); }

void streaming_store_fence() {
#if defined(MINIGPU_STREAMING_STORES)
  _mm_sfence();
#endif
}

}  // namespace minigpu
