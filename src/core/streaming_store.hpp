// Streaming (non-temporal) stores for host memory. A pass that writes an array larger than the
// last-level cache gains nothing from keeping its output in cache, yet an ordinary store first
// reads each line it writes (write-allocate): 3 transfers per element of a copy-like pass where
// memcpy, which streams, makes 2. Measured on a 2-core Xeon VM (AVX-512, 2^25 and 2^26
// elements): the fused lazy chain's loop ran at 0.46–0.60 of memcpy with ordinary stores,
// 0.90–1.07 streamed through a 1 KiB buffer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace minigpu {

/// Outputs of at least this many bytes are worth streaming: glibc 2.36's rule for memcpy
/// (3/8 of the shared cache), so a pass and the memcpy it is compared with switch together.
std::int64_t streaming_store_min_bytes();

/// Copies `bytes` from `src` to `dst` with streaming stores for the 64-byte-aligned body
/// (ordinary stores for the ragged ends; plain memcpy where the ISA has none). The stores are
/// weakly ordered: call streaming_store_fence() before another thread reads `dst`.
void stream_to(void* dst, const void* src, std::size_t bytes);

/// Orders the streaming stores issued so far by this thread before any later store.
void streaming_store_fence();

}  // namespace minigpu
