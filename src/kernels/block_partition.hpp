// Bookkeeping of distributed matrix decompositions: even splits of n rows (or columns) over
// p parts, the most square process grid for p ranks, and where SUMMA's panels begin.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace minigpu::kernels {

/// Part r holds items [offsets[r], offsets[r] + counts[r]).
struct BlockPartition {
  std::vector<std::int64_t> offsets;
  std::vector<std::int64_t> counts;

  int parts() const { return static_cast<int>(counts.size()); }
  /// The part holding item i (0 <= i < n).
  int owner(std::int64_t i) const {
    return static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), i) - offsets.begin()) - 1;
  }
  std::int64_t largest() const {
    return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  }
};

/// n items over p parts as evenly as possible: the first n % p parts hold one item more.
inline BlockPartition block_partition(std::int64_t n, int p) {
  BlockPartition out;
  const std::int64_t base = n / p, extra = n % p;
  std::int64_t offset = 0;
  for (int r = 0; r < p; ++r) {
    out.offsets.push_back(offset);
    out.counts.push_back(base + (r < extra ? 1 : 0));
    offset += out.counts.back();
  }
  return out;
}

/// The chunks overlapped SUMMA multiplies a panel's product in, C (rows × cols) += A·B, calling
/// MPI between them so that the next panel's broadcasts progress (most transports progress only
/// inside MPI calls), where MPI cannot be called during the product: the vendor BLAS's on the
/// host. Every chunk packs again the operand all chunks share: row chunks all of B's panel
/// (k × cols), column chunks all of A's (rows × k). So the chunks cut the longer side of C, and
/// there are two at most, each at least 256 long: on a 2-core Zen 4 VM (p = 2, n = 4096, panels
/// of 1024, a 2 × 1 grid: 2048 × 4096 blocks of C), overlapped / blocking time read, in 2-4
/// alternating runs, native float32 1.013-1.029 in 4 row chunks, 0.965-0.983 in 4 column chunks
/// and 0.984-0.995 in 2; native float64 1.016-1.038, 1.009-1.016 and 0.989-0.994; OpenBLAS
/// float32 1.016-1.030, 1.002-1.009 and 0.986-0.994; OpenBLAS float64 0.998-1.025, 1.020-1.035
/// and 0.995-1.016 (4 rounds). One progress call mid-product sufficed there over shared memory.
/// Over Open MPI's TCP transport 66-113 % of the communication stayed exposed at 2 chunks, and
/// more chunks cost more than they hid (docs/performance.md, 2026-12-05). So where MPI can be
/// called during the product (`progress_inside`), the panel is one product: a GPU's kernels
/// return at launch and MPI is called until the device is done; the native host GEMM calls MPI
/// between its own cache blocks (kernels::BetweenBlocks). The scaling model times the same chunks.
struct ProgressChunks {
  BlockPartition parts;  ///< C's rows, or its columns where `columns`
  bool columns = false;
};

inline ProgressChunks progress_chunks(std::int64_t rows, std::int64_t cols, bool progress_inside = false) {
  const bool columns = cols > rows;
  const std::int64_t extent = columns ? cols : rows;
  const int chunks = progress_inside ? 1 : static_cast<int>(std::clamp<std::int64_t>(extent / 256, 1, 2));
  return {block_partition(extent, chunks), columns};
}

/// pr × pc ranks; rank r sits at row r / cols, column r % cols.
struct ProcessGrid {
  int rows = 1;
  int cols = 1;
  std::string text() const { return std::to_string(rows) + "x" + std::to_string(cols); }
};

/// The most square pr × pc = p with pr >= pc: 4 -> 2×2, 6 -> 3×2, a prime p -> p×1.
inline ProcessGrid square_grid(int p) {
  int cols = 1;
  for (int c = 1; c * c <= p; ++c) {
    if (p % c == 0) cols = c;
  }
  return {p / cols, cols};
}

/// Sorted union of both partitions' offsets, ending with n: between two neighbours every
/// item lies in one part of each, so one owner of each holds a whole panel. Panels wider
/// than `max_width` (if > 0) are cut further.
inline std::vector<std::int64_t> panel_boundaries(const BlockPartition& a, const BlockPartition& b,
                                                  std::int64_t n, std::int64_t max_width = 0) {
  std::vector<std::int64_t> cuts(a.offsets);
  cuts.insert(cuts.end(), b.offsets.begin(), b.offsets.end());
  cuts.push_back(n);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  if (max_width <= 0) return cuts;
  std::vector<std::int64_t> out{cuts.front()};
  for (std::size_t i = 1; i < cuts.size(); ++i) {
    while (cuts[i] - out.back() > max_width) out.push_back(out.back() + max_width);
    out.push_back(cuts[i]);
  }
  return out;
}

/// The widths of the panels SUMMA multiplies on a pr×pc grid: cut where either partition of
/// k starts a part, and at most `max_width` wide (0: no cap).
inline std::vector<std::int64_t> summa_panel_widths(std::int64_t n, int pr, int pc, std::int64_t max_width) {
  const auto cuts = panel_boundaries(block_partition(n, pc), block_partition(n, pr), n, max_width);
  std::vector<std::int64_t> widths;
  for (std::size_t s = 0; s + 1 < cuts.size(); ++s) widths.push_back(cuts[s + 1] - cuts[s]);
  return widths;
}

/// The widest panel between neighbouring cuts (0 for fewer than two cuts).
inline std::int64_t widest_panel(const std::vector<std::int64_t>& cuts) {
  std::int64_t widest = 0;
  for (std::size_t s = 0; s + 1 < cuts.size(); ++s) widest = std::max(widest, cuts[s + 1] - cuts[s]);
  return widest;
}

}  // namespace minigpu::kernels
