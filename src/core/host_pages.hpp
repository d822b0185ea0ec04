// Host memory on transparent huge pages: for rank-to-rank messages, and for the arrays the host's
// bandwidth ceilings stream through (ceilings/measure.cpp). MPI's single-copy paths
// between the ranks of a node (Open MPI's CMA, MPICH's XPMEM/CMA) look up and copy the pages of
// a message one by one: 2,000,000 bytes cross 489 pages of 4 KiB, or one of 2 MiB. On this
// project's 2-core VM, Open MPI 4.1's ping-pong of 2,000,000 bytes between bare malloc buffers
// ran at 11-12 GB/s and between huge-page buffers at 25 GB/s (one sitting, 150 round trips). A
// streamed triad on 4 KiB pages read 35.6 GB/s on 2 threads, on 2 MiB ones 40.6 (means of 10
// interleaved runs), where likwid-bench's stream_mem_avx, whose arrays the kernel gives huge
// pages, read 38.0.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace minigpu {

inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;
/// Below this a message fits a few small pages: no padding to a huge one.
inline constexpr std::size_t kHugePageMinBytes = std::size_t(256) << 10;

/// Asks the kernel for transparent huge pages on [p, p + bytes) before they are first touched
/// (madvise MADV_HUGEPAGE): honoured where THP is "always" or "madvise", a no-op where it is
/// "never" or the platform has no such call.
void advise_huge_pages(void* p, std::size_t bytes);

/// `n` zeroed elements of Mem for messages between ranks or a streamed ceiling. In host memory of at least
/// kHugePageMinBytes, they start `offset` elements past a 2 MiB boundary of an allocation padded
/// to whole huge pages and advised onto them before the zeroing touches them first (up to 4 MiB
/// more than n + offset elements); elsewhere, an ordinary View (no offset). The offset is STREAM's OFFSET:
/// arrays that all start at the same place in a 4 KiB page make a load's address look like an
/// older store's to the core ("4K aliasing"), which stalls it. The streamed triad with its three
/// arrays 1 KiB apart read 25.6 GB/s on 1 thread against 23.0 with all three on 2 MiB boundaries
/// (means of 6 alternating runs; likwid-bench's stream_mem_sse 25.5; 2-core Xeon VM, 2026-12-01).
template <class T, class Mem>
Kokkos::View<T*, Mem> huge_page_view(const std::string& label, std::int64_t n, std::int64_t offset = 0) {
  const std::size_t bytes = static_cast<std::size_t>(n + offset) * sizeof(T);
  if constexpr (!std::is_same_v<typename Mem::memory_space, Kokkos::HostSpace>) {
    return Kokkos::View<T*, Mem>(label, n);
  } else {
    if (bytes < kHugePageMinBytes || kHugePageBytes % sizeof(T) != 0) return Kokkos::View<T*, Mem>(label, n);
    const std::size_t whole = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    Kokkos::View<T*, Mem> all(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                              static_cast<std::int64_t>((whole + kHugePageBytes) / sizeof(T)));
    const auto address = reinterpret_cast<std::uintptr_t>(all.data());
    const auto skip =
        static_cast<std::int64_t>((kHugePageBytes - address % kHugePageBytes) % kHugePageBytes / sizeof(T));
    advise_huge_pages(all.data() + skip, whole);
    Kokkos::View<T*, Mem> v = Kokkos::subview(all, std::make_pair(skip + offset, skip + offset + n));
    Kokkos::deep_copy(v, T{});
    return v;
  }
}

/// From this size a host array is advised onto huge pages (large_array_view): it then holds at
/// least one whole 2 MiB page.
inline constexpr std::size_t kLargeArrayMinBytes = 2 * kHugePageBytes;

/// `n` zeroed elements of Mem for a large array: tensors and the GEMMs' operands. In host memory
/// of at least kLargeArrayMinBytes the allocation is advised onto transparent huge pages before
/// the zeroing touches it first, so the kernel can back each whole 2 MiB page inside it with one.
/// The host GEMM packs its operands a few cache lines from each of hundreds of rows at a time
/// (n = 2048 in float64: rows 16 KiB apart), one small page each, more than the TLB holds; on
/// huge pages gemm_host ran 1-3 % faster (2-core Xeon VM, n = 1024 and 2048, 1 and 2 threads),
/// which is why NumPy advises its arrays of 4 MiB and more the same way. Unlike huge_page_view,
/// exactly n elements: the pages at either end that are not whole stay small.
template <class T, class Mem>
Kokkos::View<T*, Mem> large_array_view(const std::string& label, std::int64_t n) {
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  if constexpr (!std::is_same_v<typename Mem::memory_space, Kokkos::HostSpace>) {
    return Kokkos::View<T*, Mem>(label, n);
  } else {
    if (bytes < kLargeArrayMinBytes) return Kokkos::View<T*, Mem>(label, n);
    Kokkos::View<T*, Mem> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
    // madvise takes whole small pages: from the one the array starts in, which is its allocation's.
    const auto start = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t page = start / 4096 * 4096;
    advise_huge_pages(reinterpret_cast<void*>(page), start - page + bytes);
    Kokkos::deep_copy(v, T{});
    return v;
  }
}

}  // namespace minigpu
