// Scratch memory for the host GEMMs' packed operands: one buffer per thread and per use, reused
// from call to call, so a product in steady state allocates nothing.
#pragma once

#include "core/host_pages.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace minigpu::kernels::detail {

/// A 64-byte aligned buffer of at least `elems` T, the calling thread's own for this Use (0: A's
/// packed or padded rows, 1: B's packed block; a product uses each once at a time). It only
/// grows, and growing discards the old contents (the new buffer is zeroed): callers pack again
/// after every call.
/// A buffer of 2 MiB or more starts on a 2 MiB boundary and is advised onto transparent huge
/// pages before it is first touched, as the operands are (large_array_view). The packed B block
/// is read a micro-panel at a time, KC × NR elements running across 32 small pages (float64,
/// KC = 1024), and at n = 1024 on one thread the block is 8 MiB: 2048 small pages, the whole of
/// the second-level TLB. On huge pages (2-core Xeon VM, 2026-12-01, a harness calling gemm_host,
/// best of 8-10 calls, 6-8 alternating rounds, sorted round by round) float64 gained 1-3 %: 2
/// threads n = 1024 178.9-182.1 → 180.8-188.4 GFLOP/s, n = 2048 185.1-199.7 → 185.2-201.9;
/// 1 thread n = 1024 93.3-99.5 → 98.1-100.2, n = 2048 92.5-97.6 → 94.4-101.1; float32 level
/// (2 threads n = 1024 358-376 both ways, n = 2048 376-412 and 375-411).
template <class T, int Use>
T* host_scratch(std::int64_t elems) {
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  static thread_local std::unique_ptr<void, Free> storage;
  static thread_local std::size_t capacity = 0;  // bytes
  const std::size_t bytes = static_cast<std::size_t>(elems) * sizeof(T);
  if (!storage || capacity < bytes) {
    const std::size_t align = bytes >= kHugePageBytes ? kHugePageBytes : 64;
    const std::size_t whole = std::max<std::size_t>(1, (bytes + align - 1) / align) * align;  // elems = 0 too
    storage.reset();  // the old buffer first: at most one of them held at a time
    storage.reset(std::aligned_alloc(align, whole));
    if (!storage) throw std::bad_alloc();
    if (align == kHugePageBytes) advise_huge_pages(storage.get(), whole);
    std::memset(storage.get(), 0, whole);  // first touched here, on the thread that packs into it
    capacity = whole;
  }
  return static_cast<T*>(storage.get());
}

}  // namespace minigpu::kernels::detail
