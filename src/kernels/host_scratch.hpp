// Scratch memory for the host GEMMs' packed operands: one buffer per thread and per use, reused
// from call to call, so a product in steady state allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace minigpu::kernels::detail {

/// A 64-byte aligned buffer of at least `elems` T, the calling thread's own for this Use (0: A's
/// packed or padded rows, 1: B's packed block; a product uses each once at a time). It only
/// grows, and growing discards the old contents: callers pack again after every call.
template <class T, int Use>
T* host_scratch(std::int64_t elems) {
  static thread_local std::vector<T> storage;
  constexpr std::size_t pad = 64 / sizeof(T);
  if (storage.size() < static_cast<std::size_t>(elems) + pad) storage.resize(elems + pad);
  const std::uintptr_t raw = reinterpret_cast<std::uintptr_t>(storage.data());
  return reinterpret_cast<T*>((raw + 63) & ~std::uintptr_t(63));
}

}  // namespace minigpu::kernels::detail
