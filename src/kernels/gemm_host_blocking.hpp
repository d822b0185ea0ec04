// gemm_host's cache blocking (KC, MC, NC) from the caches the OS reports, for a tile PR rows
// high; gemm_host.hpp has the loops they block.
#pragma once

#include "core/cpu_info.hpp"
#include "kernels/gemm_host_tile.hpp"

#include <algorithm>
#include <cstdint>

namespace minigpu::kernels::detail {

// Rows of A per packed block, at least, before rounding to MR: see host_blocking.
inline constexpr std::int64_t kMinBlockRows = 32;
/// At most this many rows in an Intel core's A block (host_blocking()).
inline constexpr std::int64_t kIntelBlockRows = 256;

/// k up to a quarter past this deep runs in one pass where L2 has at least 1 MiB and KC is
/// shallower (host_blocking's one_pass_k).
inline constexpr std::int64_t kOnePassDepth = 1024;

struct HostBlocking {
  std::int64_t kc = 0, mc = 0, nc = 0;
  std::int64_t one_pass_k = 0;  // k up to this is one block of KC = k, not balanced blocks of kc
};

// Cache blocking from the cache sizes. KC: deep, because each MR×NR tile of C is loaded and
// stored once per KC rank-1 updates; the KC×NR micro-panel of B (128 bytes per step of k) may
// outgrow L1 and stream from L2, which feeds it with room to spare, so it is capped at an
// eighth of L2 and at 512. On a Xeon (48 KiB L1d, 2 MiB L2) native / OpenBLAS went from
// 0.88-0.91 at KC = 192 (B in half of L1) to 0.94-1.03 at 512, n = 512 ... 2048, 1 thread.
// Intel's cores take KC up to 1024 for float and double too, NC staying what 512 gives (so the
// B block may fill 8 × L2): C's tiles are loaded and stored half as often, and B's 128 KiB
// panel streams from L2 as the 64 KiB one did. That VM, 14-row tile, 4 alternating rounds,
// GFLOP/s at KC 512 / 1024: float32 n = 1024 201.6-204.5 / 204.6-209.3 and n = 2048
// 199.4-203.5 / 207.5-209.7 on 1 thread, 385-395 / 394-399 and 394-402 / 411-413 on 2;
// float64 (MC 126) 99.6-100.7 / 100.8-101.3 and 96.1-101.2 / 102.0-103.3 on 1 thread,
// 194-196 / 189-196 and 201-204 / 205-206 on 2; float32 n = 768 203 / 207, n = 512 level.
// MC: the packed A block (MC×KC) in an eighth of L2, and at least kMinBlockRows rows: each KC×NR
// micro-panel of B comes from L3 once per block of rows and serves its MC/MR tiles, so with a
// small L2 KC gives way. On the Zen 5 VM (1 MiB L2, KC = 512) float64 at MC = 24 (a 96 KiB
// block) ran 2-6 % faster than at 120 (half of L2), 6 interleaved calls each, median GFLOP/s
// pinned to one core / the other / on 2 threads: n = 1024 90.9 / 95.8 / 172.1 against 86.9 /
// 93.3 / 166.6; n = 2048 88.2 / 99.2 / 177.1 against 83.0 / 96.1 / 170.3; n = 4096 90.4 / 98.5
// / 175.4 against 88.1 / 96.1 / 165.0. MC = 36 and 48 ran between 120 and 24 or level with 24;
// 12 level with 24 at n = 1024 and 2048, above it at 4096 (92.0 / 98.6 / 179.5). float32 (MC 60
// for 128) and bfloat16 (60 for 252) ran level, within ±2 %, either way. A Zen 3 (512 KiB L2)
// had KC = 256 and MC = 126 run 6-8 % faster than KC = 512 and MC = 60 on 1 thread; it now gets
// KC = 256 and MC = 24.
// Intel's cores get the A block in half of L2, at most kIntelBlockRows rows: their L3 is a mesh
// further from the core than a Zen CCX's, so a B micro-panel from it should serve more tiles. A
// 2-core Xeon VM (AVX-512, AMX; 48 KiB L1d, 2 MiB L2), 2026-12-01, KC = 512, 3 interleaved
// rounds each, GFLOP/s at n = 1024 / 2048 on 1 thread: float64 at MC = 252 71.8-73.6 /
// 66.6-72.4 against 65.2-70.2 / 69.9-71.7 at 60 (an eighth of L2); float32 at 252 153.2-156.9 /
// 149.6-157.9 against 145.6-149.1 / 144.7-158.0 at 120; on 2 threads float64 at 240 140-146 /
// 141-147 against 134-144 / 133-142. More rows lost: float64 at 360 62-67, at 504 59-67; float32
// at 504 level with 120.
// NC: the packed B block (KC×NC) in half of L3, and in at most 4 × L2: the L3 a VM reports may
// be the whole socket's (508 MiB on the Zen 5 VM), and even a real one is shared with the other
// cores, while the block must stay there as A's blocks and C's rows stream past it. On that VM
// (1 MiB L2), 1 thread, n = 2048, 12 interleaved calls each, pinned to one core and then the
// other: float64 at NC = 2048 (an 8 MiB block) read a median of 77.8 / 92.1 GFLOP/s, at 1024 (4
// MiB) 82.3 / 94.9, at 512 83.0 / 93.4, at 256 78.2 / 89.6 (A is packed again for each block of
// columns); float32 at 2048 (4 MiB) 173.7, 1024 173.0, 512 165.4. On 2 threads each worker's slab
// of 1024 columns was within the cap already.
// One pass: a k that KC would cut in two but not beyond kOnePassDepth (float and double, L2 of 1
// MiB or more) runs as one block of KC = k, so C's tiles are stored once, never loaded, and A's and
// B's blocks are packed once each: deeper panels streaming from L2, as Intel's KC of 1024 already
// has them. MC and NC stay as at KC, so A's block doubles and B's may too. Zen 5 VM (1 MiB L2, KC
// 512; 2026-12-04), a harness calling gemm_host's loops, medians of 7-15 calls, 3-11 alternating
// rounds, one pass against balanced blocks: 2 threads, float64 n = 768 +4.2 to +7.5 %, n = 1000
// +2.2 to +4.1 %, n = 1024 +0.4 to +4.0 % (11 rounds), 2048 × 512 × 1000 +1.6 to +5.7 %, 4096 × 256
// × 784 +5.4 to +9.5 %; float32 +2.0 to +11.1 % on the same shapes (n = 1024 +0.7 to +1.7 %); 1
// thread -0.1 to +5.1 % in float64 and -0.6 to +2.6 % in float32. Smaller L2s (a Zen 3's 512 KiB)
// keep balanced blocks: not measured there.
// And a k up to a quarter past kOnePassDepth: the same harness and VM later that day (a faster
// host), 3-4 alternating rounds against balanced blocks of up to 512, one pass read float64
// n = 1040 +2.4 to +4.9 % and n = 1280 +3.9 to +5.4 % on 2 threads, float32 +3.3 to +5.0 %; 1
// thread at n = 1280 +4.4 to +5.3 % and +1.5 to +2.7 %. Deeper k keeps balanced blocks of KC.
// Blocks of 1024 there read +4.1 to +5.3 % at n = 2048 (float64, 2 threads) and +0.4 to +5.9 %
// at n = 1536 ... 3072, but at n = 4096 on 2 threads float64 read 0.85-1.10 of KC = 512 (median
// 0.94, 4 rounds, in a slow spell of the VM), and 1024 × 2048 × 2048 on 1 thread float32 0.985-
// 0.999. The suspect: NC stays as at KC, so each worker's B block doubles to 8 MiB; not
// measured apart. One pass of 2048 lost 8-27 %.
// Operands of S (bfloat16 into a float C) take as many bytes per block: a KC twice as deep for
// 2-byte operands, up to 1024, so C's tile is loaded and stored half as often.
template <class T, class S = T, int PR = HostTile<T>::MR>
HostBlocking host_blocking() {
  using Tile = HostTile<T, PR>;
  const CpuCaches& caches = cpu_caches();
  const std::int64_t bytes = sizeof(S);
  auto round_down = [](std::int64_t v, std::int64_t unit) { return std::max(unit, v / unit * unit); };
  const bool intel = bytes >= 4 && cpu_is_intel();
  HostBlocking b;
  b.kc =
      round_down(std::min<std::int64_t>({caches.l2 / 8 / (Tile::NR * bytes), bytes == 2 || intel ? 1024 : 512,
                                         caches.l2 / 8 / (kMinBlockRows * bytes)}),
                 8);
  b.mc = intel ? round_down(std::min<std::int64_t>(caches.l2 / 2 / (b.kc * bytes), kIntelBlockRows), Tile::MR)
               : round_down(caches.l2 / 8 / (b.kc * bytes), Tile::MR);
  const std::int64_t nc_depth = intel ? std::min<std::int64_t>(b.kc, 512) : b.kc;  // Intel: NC as at 512
  // Intel's cores, whose KC is 1024 already, were measured at k = 1024 alone: KC there.
  const bool one_pass = bytes >= 4 && caches.l2 >= (std::int64_t{1} << 20) && b.kc < kOnePassDepth;
  b.one_pass_k = one_pass ? kOnePassDepth + kOnePassDepth / 4 : b.kc;
  b.nc = round_down(std::min<std::int64_t>(std::min(caches.l3 / 2, 4 * caches.l2) / (nc_depth * bytes), 4096),
                    Tile::NR);
  return b;
}

/// `total` in blocks of equal size under `cap`, rounded up to `unit`: k = KC + 1 as KC and 1
/// would make a second pass over C for a single rank-1 update.
inline std::int64_t balanced_block(std::int64_t total, std::int64_t cap, std::int64_t unit) {
  const std::int64_t blocks = (total + cap - 1) / cap;
  return ((total + blocks - 1) / blocks + unit - 1) / unit * unit;
}

}  // namespace minigpu::kernels::detail
