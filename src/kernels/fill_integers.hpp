// Deterministic small-integer fills: products and sums of such values stay exact in float,
// so a matrix product can be checked for equality rather than within a tolerance.
#pragma once

#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace minigpu::kernels {

/// Element i of fill_small_integers(out, seed, radius): for host-side references.
KOKKOS_INLINE_FUNCTION std::int64_t small_integer(std::uint64_t seed, std::int64_t i, int radius) {
  const std::uint64_t span = 2 * static_cast<std::uint64_t>(radius) + 1;
  const std::uint64_t r =
      splitmix64(splitmix64(seed) ^ static_cast<std::uint64_t>(i) * 0xD1B54A32D192ED03ULL);
  return static_cast<std::int64_t>(r % span) - radius;
}

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// fill_small_integers's body: out(i) = small_integer(seed, i, radius).
template <class View>
struct FillSmallIntegersBody {
  View out;
  std::uint64_t seed;
  int radius;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    using T = typename View::non_const_value_type;
    out(i) = static_cast<T>(small_integer(seed, i, radius));
  }
};

/// out(i) = an integer in [-radius, radius] that depends only on (seed, i).
template <class View>
void fill_small_integers(const View& out, std::uint64_t seed, int radius = 2) {
  Kokkos::parallel_for("fill::small_integers", RangeOf<View>(0, out.extent(0)),
                       FillSmallIntegersBody<View>{out, seed, radius});
}

/// Element i of the sum of `count` fills seeded first_seed, first_seed + 1, … (one fill per
/// rank, say): Σ small_integer(first_seed + s, i, radius) over s < count, exactly.
inline std::int64_t small_integer_sum(std::uint64_t first_seed, int count, std::int64_t i, int radius) {
  std::int64_t sum = 0;
  for (int s = 0; s < count; ++s) sum += small_integer(first_seed + static_cast<std::uint64_t>(s), i, radius);
  return sum;
}

/// Index of the first of n host values that is not its small_integer_sum, or -1 if none: the
/// exact check of a reduction of such fills (sums of small integers are exact in float).
template <class T>
std::int64_t find_small_integer_sum_mismatch(const T* data, std::int64_t n, std::uint64_t first_seed,
                                             int count, int radius) {
  for (std::int64_t i = 0; i < n; ++i) {
    if (data[i] != static_cast<T>(small_integer_sum(first_seed, count, i, radius))) return i;
  }
  return -1;
}

}  // namespace minigpu::kernels
