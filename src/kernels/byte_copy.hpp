// Byte buffers for copy benchmarks: a position-dependent fill, k-chunk copies, a host check,
// and which host memory a copy to or from a device can be measured from.
// Pure Kokkos: fills run in the execution space of the View they write.
#pragma once

#include "core/backend.hpp"
#include "core/device.hpp"
#include "core/host_pages.hpp"
#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace minigpu::kernels {

/// Byte i of the pattern for `seed`: byte (i mod 8) of a hash of the 8-byte word index,
/// so a chunk copied to the wrong offset, or not at all, shows up as a mismatch.
KOKKOS_INLINE_FUNCTION unsigned char pattern_byte(std::uint64_t seed, std::int64_t i) {
  const std::uint64_t word = splitmix64(seed + static_cast<std::uint64_t>(i >> 3));
  return static_cast<unsigned char>(word >> (8 * (i & 7)));
}

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// fill_pattern's body: the 8 bytes of word w (fewer at the end of n bytes).
template <class View>
struct FillPatternBody {
  View out;
  std::uint64_t seed;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t w) const {
    const std::uint64_t word = splitmix64(seed + static_cast<std::uint64_t>(w));
    if (8 * w + 8 <= n) {  // a whole word: a fixed count of stores, which a compiler may merge into one
      for (int k = 0; k < 8; ++k) out(8 * w + k) = static_cast<unsigned char>(word >> (8 * k));
      return;
    }
    for (std::int64_t i = 8 * w; i < n; ++i) out(i) = static_cast<unsigned char>(word >> (8 * (i & 7)));
  }
};

/// out(i) = pattern_byte(seed, i); one hash per 8 bytes keeps a 1 GiB fill cheap on a host.
template <class View>
void fill_pattern(const View& out, std::uint64_t seed) {
  const std::int64_t n = out.extent(0);
  Kokkos::parallel_for("fill::byte_pattern", RangeOf<View>(0, (n + 7) / 8),
                       FillPatternBody<View>{out, seed, n});
}

/// A zeroed buffer in Space of a copy from SrcSpace to DstSpace. A copy within host memory (the
/// cpu device) is shared against host_memcpy, whose buffers sit on huge pages: so do its own.
/// Two 1 GiB cases on 4 KiB pages ran 11.8-14.1 s, 6.9-8.0 s of it in the kernel, mostly page
/// faults; on 2 MiB ones, with the pattern a word at a time, 1.8-2.0 s (2-core Zen 5 VM). A copy
/// to or from a GPU keeps ordinary pageable memory, as its reference (tests/gpu/cuda_reference.cpp's
/// std::vector) and PyTorch have it.
template <class Space, class DstSpace, class SrcSpace>
Kokkos::View<unsigned char*, Space> copy_buffer(const std::string& label, std::int64_t bytes) {
  using Host = Kokkos::HostSpace;
  if constexpr (std::is_same_v<typename DstSpace::memory_space, Host> &&
                std::is_same_v<typename SrcSpace::memory_space, Host>) {
    return huge_page_view<unsigned char, Space>(label, bytes);
  } else {
    return Kokkos::View<unsigned char*, Space>(label, bytes);
  }
}

/// Copies src to dst as `chunks` deep_copies of contiguous, nearly equal pieces: the
/// "many small copies" side of the comparison (chunks = 1 is one copy of everything).
template <class DstView, class SrcView>
void chunked_copy(const DstView& dst, const SrcView& src, std::int64_t chunks) {
  const std::int64_t n = dst.extent(0);
  for (std::int64_t c = 0; c < chunks; ++c) {
    const auto range = Kokkos::make_pair(n * c / chunks, n * (c + 1) / chunks);
    Kokkos::deep_copy(Kokkos::subview(dst, range), Kokkos::subview(src, range));
  }
}

/// std::memcpy of `bytes` as one contiguous slice per thread of the host execution space, each
/// copied by glibc's memcpy: BabelStream's copy at full socket (std::memcpy itself at 1 thread).
/// A host function: the slices call the C library.
inline void host_parallel_memcpy(void* dst, const void* src, std::int64_t bytes) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  const std::int64_t threads = Exec().concurrency();
  if (threads <= 1 || bytes <= 0) {
    if (bytes > 0) std::memcpy(dst, src, static_cast<std::size_t>(bytes));
    return;
  }
  constexpr std::int64_t kPage = 4096;  // slices start on pages: no line is written by two threads
  const std::int64_t slice = ((bytes + threads - 1) / threads + kPage - 1) / kPage * kPage;
  auto* const to = static_cast<char*>(dst);
  const auto* const from = static_cast<const char*>(src);
  Kokkos::parallel_for("copy::host_parallel_memcpy", Kokkos::RangePolicy<Exec>(0, threads),
                       [=](const std::int64_t t) {
                         const std::int64_t begin = t * slice < bytes ? t * slice : bytes;
                         const std::int64_t end = begin + slice < bytes ? begin + slice : bytes;
                         if (end > begin)
                           std::memcpy(to + begin, from + begin, static_cast<std::size_t>(end - begin));
                       });
  Kokkos::fence();
}

/// Index of the first of n host bytes that differs from the pattern, or -1 if none does.
/// A plain serial host loop, independent of the fill kernel and of where it ran.
inline std::int64_t find_pattern_mismatch(const unsigned char* data, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t w = 0; 8 * w < n; ++w) {
    const std::uint64_t word = splitmix64(seed + static_cast<std::uint64_t>(w));
    if (8 * w + 8 <= n) {  // a whole word read as one (whatever the byte order), bytes only if it differs
      std::uint64_t got = 0;
      for (int k = 0; k < 8; ++k) got |= static_cast<std::uint64_t>(data[8 * w + k]) << (8 * k);
      if (got == word) continue;
    }
    for (std::int64_t i = 8 * w; i < 8 * w + 8 && i < n; ++i) {
      if (data[i] != static_cast<unsigned char>(word >> (8 * (i & 7)))) return i;
    }
  }
  return -1;
}

/// Index of the first of `total` host bytes, back-to-back copies of the pattern's first `n`
/// bytes (the messages of a window, each in its own slot), that differs from it, or -1 if none.
inline std::int64_t find_repeated_pattern_mismatch(const unsigned char* data, std::int64_t total,
                                                   std::int64_t n, std::uint64_t seed) {
  for (std::int64_t slot = 0; slot * n < total; ++slot) {
    const std::int64_t bad = find_pattern_mismatch(data + slot * n, std::min(n, total - slot * n), seed);
    if (bad >= 0) return slot * n + bad;
  }
  return -1;
}

/// The kinds of host memory a copy to or from a device is measured from, of those asked for.
struct HostMemoryKinds {
  std::vector<bool> pinned;  ///< each kind measured: pageable (false) first, then pinned
  std::string note;          ///< whether pinned is among them, and if not why
  bool has_pinned() const { return !pinned.empty() && pinned.back(); }
};

/// Pinned memory only where the backend has it (kHasPinnedHostMemory) and `device`'s memory is
/// not host memory itself, where pinning changes nothing; without it pageable stands in.
inline HostMemoryKinds host_memory_kinds(Device device, bool want_pageable, bool want_pinned) {
  const bool pinned = want_pinned && kHasPinnedHostMemory && !uses_host_memory(device);
  HostMemoryKinds kinds;
  if (want_pageable || !pinned) kinds.pinned.push_back(false);
  if (pinned) kinds.pinned.push_back(true);
  if (pinned) {
    kinds.note = "pinned host memory measured";
  } else if (!want_pinned) {
    kinds.note = "pinned not requested";
  } else if (!kHasPinnedHostMemory) {
    kinds.note = "pageable only: this build has no pinned host memory";
  } else {
    kinds.note = "pageable only: " + describe(device) + " uses host memory, so pinning changes nothing";
  }
  return kinds;
}

}  // namespace minigpu::kernels
