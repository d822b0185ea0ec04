// Spellings that differ between Kokkos 3.4 (Debian 12) and Kokkos 4.x/5.x, picked once.
#pragma once

#include <Kokkos_Core.hpp>

namespace minigpu::kmath {

// Kokkos 3.4 has math functions only in Kokkos::Experimental, which 4.x removed.
#if KOKKOS_VERSION >= 30600
using Kokkos::exp;
using Kokkos::pow;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::exp;
using Kokkos::Experimental::pow;
using Kokkos::Experimental::sqrt;
#endif

}  // namespace minigpu::kmath
