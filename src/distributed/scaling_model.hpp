// An α–β–γ model of matmul_scaling's algorithms as coded (distributed/distributed_matmul.hpp):
// a message of m bytes costs α + m·β on the link it crosses, a local GEMM what the machine's
// gemm_seconds says. Pure arithmetic (no Kokkos, no MPI; calibration.hpp measures the constants
// in a run), so a run can set its measured figures beside a prediction, and `minigpu model` can
// extrapolate to machines it has never run on.
//
// Cost formulas (q ranks in a collective; a q = 1 collective costs 0):
//   broadcast of m bytes  Chan, Heimlich, Purkayastha, van de Geijn, "Collective communication:
//     theory, practice, and experience", Concurrency Computat.: Pract. Exper. 19 (2007):
//     binomial tree ⌈log2 q⌉(α + mβ) for short messages; scatter + allgather
//     (⌈log2 q⌉ + q − 1)α + 2((q − 1)/q)mβ for long ones. The cheaper of the two is taken, as
//     Open MPI's tuned decision picks a broadcast algorithm by message size.
//   allgather of N bytes in all  the same paper's ring: (q − 1)α + ((q − 1)/q)Nβ.
//   SUMMA  van de Geijn & Watts, "SUMMA: Scalable Universal Matrix Multiplication Algorithm",
//     Concurrency: Pract. Exper. 9 (1997): per panel s a broadcast of A(I, s) along the process
//     row and of B(s, J) down the process column, then the local rank-w update.
//   2.5D   Solomonik & Demmel, "Communication-optimal parallel 2.5D matrix multiplication and
//     LU factorization algorithms", Euro-Par 2011: W = O(n²/√(cp)) words and
//     S = O(√(p/c³)) messages per rank; the constants used are in estimate_25d_bound.
// Times are those of the slowest rank (the largest block of each partition) and a collective
// among ranks on more than one node pays the inter-node link for all of its bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace minigpu::perfmodel {

/// One hop's cost: t(m bytes) = alpha_s + m * beta_s_per_byte.
struct Link {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
  std::string source;  ///< where the figures came from ("ping-pong ranks 0-1 this run", a datasheet)
  double seconds(double bytes) const { return alpha_s + bytes * beta_s_per_byte; }
};

/// Seconds of one local C(m×n) (+)= A(m×k)·B(k×n) on one device.
using GemmSeconds = std::function<double(std::int64_t m, std::int64_t n, std::int64_t k)>;

/// 2mnk / rate: a device that runs every GEMM at `flops_per_s`.
GemmSeconds constant_rate(double flops_per_s);

struct Machine {
  Link intra_node, inter_node;
  int gpus_per_node = 1;  ///< ranks per node, one per GPU; node(rank) = rank / gpus_per_node
  GemmSeconds gemm_seconds;
  /// True where the messages are copied by the cores that also compute (host memory within one
  /// node: the MPI library copies in its calls): overlap then shortens no multiply, it only
  /// moves the copies from waiting (comm_exposed_s) into the compute phase.
  bool comm_takes_cores = false;
};

/// comm_exposed_s is the communication not hidden behind compute (= comm_s when blocking).
struct Estimate {
  double total_s = 0, compute_s = 0, comm_s = 0, comm_exposed_s = 0;
};

/// row decomposition as coded (allgather of B, then rows×n×n), p ranks
Estimate estimate_row(const Machine& m, std::int64_t n, int p, std::size_t elem_bytes);
/// summa as coded: grid pr×pc, the panel widths in order (sum = n); overlap as coded when `overlap`
Estimate estimate_summa(const Machine& m, std::int64_t n, int pr, int pc,
                        const std::vector<std::int64_t>& panel_widths, bool overlap, std::size_t elem_bytes);
/// PILAENV's logical block in the reference PBLAS 2.0 (PBLAS/SRC/pilaenv.f), which Debian's
/// ScaLAPACK ships unchanged: 32 for every precision.
inline constexpr std::int64_t kPblasLogicalBlock = 32;
/// The steps of k in which ScaLAPACK's PxGEMM multiplies n×n operands with nb×nb blocks on a
/// pr×pc grid, as coded in the reference PBLAS 2.0: for square operands pdgemm_.c picks
/// PB_CpgemmAB (A and B travel, C stays), which makes one local product of all of k where neither
/// A nor B spans more than one process (one rank, or k within one block), and otherwise
/// broadcasts and multiplies kPblasLogicalBlock columns of A and rows of B a step, whatever nb.
/// estimate_summa over these widths is the model of a PxGEMM call.
std::vector<std::int64_t> pblas_k_steps(std::int64_t n, std::int64_t nb, int pr, int pc);
/// Solomonik & Demmel's 2.5D lower-bound-achieving algorithm with the largest replication c (c³ ≤ p) for
/// comparison
Estimate estimate_25d_bound(const Machine& m, std::int64_t n, int p, std::size_t elem_bytes);
/// Broadcast of `bytes` among q ranks, allgather of `total_bytes` among q ranks (cost formulas cited)
double broadcast_seconds(const Link& l, int q, double bytes);
double allgather_seconds(const Link& l, int q, double total_bytes);

/// The link a collective among ranks first, first + stride, …, first + (q−1)·stride uses:
/// inter-node when they sit on more than one node (blocks of gpus_per_node ranks per node).
const Link& link_between(const Machine& m, int first, int stride, int q);
/// The largest c with c³ ≤ p: the replication of the 2.5D algorithm.
int replication_25d(int p);

}  // namespace minigpu::perfmodel
