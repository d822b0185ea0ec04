// Distributed C = A·B by ScaLAPACK (PSGEMM / PDGEMM), beside miniGPU's own row and SUMMA
// engines: what a user would otherwise call. A, B and C are n×n in nb×nb blocks dealt 2-D
// block-cyclically over a pr×pc BLACS grid (rank r is process (r / pc, r % pc), as in SUMMA),
// first block on process (0, 0), stored column-major per rank; every rank fills its own
// blocks of A and B from the same formulas as the other engines, by global index.
// Host memory only: ScaLAPACK's local products run the host BLAS on host pointers.
#pragma once

#include "core/backend.hpp"
#include "core/device.hpp"
#include "distributed/distributed_matmul.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace minigpu {

/// ScaLAPACK Users' Guide (Blackford et al., SIAM 1997), notes to its example program in
/// ch. 2: "for best performance, a choice of MB = NB = 32 or MB = NB = 64 is more suitable"
/// (https://netlib.org/scalapack/slug/). 64, the larger, means fewer and larger messages
/// and local BLAS calls; at the n where scaling is measured (hundreds and up) a 64-wide block
/// still leaves every process many blocks, so the load stays balanced.
inline constexpr std::int64_t kScalapackDefaultBlock = 64;

/// True when this build can run the scalapack decomposition.
bool scalapack_available();

/// Why the scalapack decomposition cannot run on `device` in this build, or "" when it can.
inline std::string scalapack_refusal(Device device) {
  if (!scalapack_available())
    return "'scalapack' needs a build with ScaLAPACK (Debian: apt-get install libscalapack-openmpi-dev, then "
           "reconfigure); this build has none";
  if (!uses_host_memory(device))
    return "'scalapack' runs in host memory only; device " + describe(device) +
           " is not: choose device: cpu (or drop scalapack)";
  return "";
}

/// The product on every rank of `comm` over a `grid` (rows · cols = comm's size) BLACS grid
/// in nb×nb blocks. Throws std::invalid_argument for a device whose memory is not the host's.
std::unique_ptr<DistributedMatmul> make_scalapack_matmul(DType dtype, Device device,
                                                         const comm::Communicator& comm, std::int64_t n,
                                                         kernels::ProcessGrid grid, std::int64_t nb);

/// Bytes the busiest rank allocates: its blocks of A, B and C (process (0, 0) holds the
/// most), an estimate of PBLAS's two panel buffers (mr + nc)·nb, and the check's vectors.
std::uint64_t scalapack_bytes_per_rank(std::int64_t n, kernels::ProcessGrid grid, std::int64_t nb,
                                       std::uint64_t elem);

}  // namespace minigpu
