// Tiled matrix multiply: each team computes one Tile×Tile block of C, staging Tile×Tile
// blocks of A and B in team scratch (shared memory on a GPU) so each element of A and B is
// read from global memory n/Tile times instead of n times. flops = 2·m·n·k.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace minigpu::kernels {

/// C = A·B with A m×k, B k×n, C m×n, all row-major in flat Views. Any sizes: blocks that
/// overhang the matrix edge are padded with zeros in scratch and never written back.
template <int Tile = 16, class CView, class AView, class BView>
void matmul_tiled(const CView& c, const AView& a, const BView& b, std::int64_t m, std::int64_t n, std::int64_t k) {
  using T = typename CView::non_const_value_type;
  using Exec = typename CView::execution_space;
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<T*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr int tile_elems = Tile * Tile;

  const std::int64_t tiles_n = (n + Tile - 1) / Tile;
  const int league = static_cast<int>(((m + Tile - 1) / Tile) * tiles_n);
  if (league == 0) return;
  const std::size_t scratch_bytes = 3 * Scratch::shmem_size(tile_elems);

  auto body = KOKKOS_LAMBDA(const Member& team) {
    constexpr int elems = Tile * Tile;  // declared here so the device code captures nothing for it
    const std::int64_t i0 = (team.league_rank() / tiles_n) * Tile;
    const std::int64_t j0 = (team.league_rank() % tiles_n) * Tile;
    Scratch as(team.team_scratch(0), elems);
    Scratch bs(team.team_scratch(0), elems);
    // C's block accumulates in scratch because a team may have fewer threads than elements
    // (one thread on Serial); each element keeps the same thread in every loop below.
    Scratch cs(team.team_scratch(0), elems);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, elems), [&](const int e) { cs(e) = T(0); });
    for (std::int64_t p0 = 0; p0 < k; p0 += Tile) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, elems), [&](const int e) {
        const std::int64_t r = e / Tile, q = e % Tile;
        as(e) = (i0 + r < m && p0 + q < k) ? a((i0 + r) * k + p0 + q) : T(0);
        bs(e) = (p0 + r < k && j0 + q < n) ? b((p0 + r) * n + j0 + q) : T(0);
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, elems), [&](const int e) {
        const int r = e / Tile, q = e % Tile;
        T acc = cs(e);
        for (int s = 0; s < Tile; ++s) acc += as(r * Tile + s) * bs(s * Tile + q);
        cs(e) = acc;
      });
      // The next block may not overwrite as/bs until every thread has used them.
      team.team_barrier();
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, elems), [&](const int e) {
      const std::int64_t i = i0 + e / Tile, j = j0 + e % Tile;
      if (i < m && j < n) c(i * n + j) = cs(e);
    });
  };

  // One thread per element of the block where the backend allows it (a GPU); fewer elsewhere.
  Policy probe(league, 1);
  probe.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  const int team_size = std::min(tile_elems, probe.team_size_max(body, Kokkos::ParallelForTag()));
  Policy policy(league, team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  Kokkos::parallel_for("minigpu::matmul_tiled", policy, body);
}

}  // namespace minigpu::kernels
