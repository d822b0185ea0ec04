// The cost formulas of scaling_model.hpp, one function each.
#include "distributed/scaling_model.hpp"

#include "core/gemm_dims.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace minigpu::perfmodel {
namespace {

double log2_ceil(int q) { return std::ceil(std::log2(static_cast<double>(q))); }

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

int node_of(const Machine& m, int rank) { return rank / std::max(1, m.gpus_per_node); }

// Group g holds ranks first(g), first(g) + stride, …; one group crossing nodes slows them all
// (in SUMMA the other rows wait for it in the next broadcast down their column): the slowest
// group sets the pace.
const Link& slowest_link(const Machine& m, int groups, const std::function<int(int)>& first, int stride,
                         int q) {
  for (int g = 0; g < groups; ++g) {
    if (&link_between(m, first(g), stride, q) == &m.inter_node) return m.inter_node;
  }
  return m.intra_node;
}

}  // namespace

GemmSeconds constant_rate(double flops_per_s) {
  if (!(flops_per_s > 0) || !std::isfinite(flops_per_s))
    throw std::invalid_argument("constant_rate: the rate must be a positive number of flop/s");
  return [flops_per_s](std::int64_t m, std::int64_t n, std::int64_t k) {
    return gemm_flops(m, n, k) / flops_per_s;
  };
}

const Link& link_between(const Machine& m, int first, int stride, int q) {
  if (q <= 1) return m.intra_node;
  return node_of(m, first) == node_of(m, first + (q - 1) * stride) ? m.intra_node : m.inter_node;
}

int replication_25d(int p) {
  int c = 1;
  while (static_cast<std::int64_t>(c + 1) * (c + 1) * (c + 1) <= p) ++c;
  return c;
}

double broadcast_seconds(const Link& l, int q, double bytes) {
  if (q <= 1) return 0;
  const double steps = log2_ceil(q);
  const double binomial = steps * (l.alpha_s + bytes * l.beta_s_per_byte);
  const double scatter_allgather =
      (steps + q - 1) * l.alpha_s + 2.0 * (q - 1) / q * bytes * l.beta_s_per_byte;
  return std::min(binomial, scatter_allgather);
}

double allgather_seconds(const Link& l, int q, double total_bytes) {
  if (q <= 1) return 0;
  return (q - 1) * l.alpha_s + static_cast<double>(q - 1) / q * total_bytes * l.beta_s_per_byte;
}

Estimate estimate_row(const Machine& m, std::int64_t n, int p, std::size_t elem_bytes) {
  Estimate e;
  const double b_bytes = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(elem_bytes);
  e.comm_s = allgather_seconds(link_between(m, 0, 1, p), p, b_bytes);
  // block_partition gives the first n % p ranks one row more: they finish last.
  e.compute_s = m.gemm_seconds(ceil_div(n, p), n, n);
  e.comm_exposed_s = e.comm_s;
  e.total_s = e.comm_s + e.compute_s;
  return e;
}

Estimate estimate_summa(const Machine& m, std::int64_t n, int pr, int pc,
                        const std::vector<std::int64_t>& panel_widths, bool overlap, std::size_t elem_bytes) {
  const std::int64_t mr = ceil_div(n, pr), nc = ceil_div(n, pc);
  // Row I holds ranks I·pc … I·pc+pc−1; column J holds J, J+pc, …, J+(pr−1)·pc.
  const Link& row_link = slowest_link(
      m, pr, [pc](int row) { return row * pc; }, 1, pc);
  const Link& col_link = slowest_link(
      m, pc, [](int col) { return col; }, pc, pr);
  const double elem = static_cast<double>(elem_bytes);
  std::vector<double> comm, gemm;
  for (std::int64_t w : panel_widths) {
    const double a_bytes = static_cast<double>(mr * w) * elem, b_bytes = static_cast<double>(w * nc) * elem;
    comm.push_back(broadcast_seconds(row_link, pc, a_bytes) + broadcast_seconds(col_link, pr, b_bytes));
    gemm.push_back(m.gemm_seconds(mr, nc, w));
  }
  Estimate e;
  for (std::size_t s = 0; s < comm.size(); ++s) {
    e.comm_s += comm[s];
    e.compute_s += gemm[s];
  }
  if (!overlap || comm.empty()) {
    e.total_s = e.comm_s + e.compute_s;
    e.comm_exposed_s = e.comm_s;
    return e;
  }
  // Double-buffered: panel s+1's broadcasts are in flight during panel s's GEMM; panel 0's are not.
  e.total_s = comm[0];
  for (std::size_t s = 0; s < comm.size(); ++s) {
    e.total_s += std::max(gemm[s], s + 1 < comm.size() ? comm[s + 1] : 0.0);
  }
  e.comm_exposed_s = e.total_s - e.compute_s;
  // Copies made by the computing cores (inside the progress calls between chunks) hide behind
  // nothing: they lengthen the compute phase, and only the waiting stays exposed.
  if (m.comm_takes_cores) e.total_s = e.comm_s + e.compute_s;
  return e;
}

std::vector<std::int64_t> pblas_k_steps(std::int64_t n, std::int64_t nb, int pr, int pc) {
  if (n <= 0) return {};
  // PB_Cspan: an operand spans processes when they are more than one and k leaves its first block.
  const bool a_spans = pc > 1 && n > nb, b_spans = pr > 1 && n > nb;
  if (!a_spans && !b_spans) return {n};
  std::vector<std::int64_t> steps(static_cast<std::size_t>(n / kPblasLogicalBlock), kPblasLogicalBlock);
  if (n % kPblasLogicalBlock) steps.push_back(n % kPblasLogicalBlock);
  return steps;
}

// Solomonik & Demmel's √(p/c) × √(p/c) × c grid, blocks of n²c/p elements. Constants used:
//   replication of A and B over the c layers and reduction of C back: 3 collectives among c
//     ranks, each at its bandwidth bound (every rank receives or sends its block once,
//     n²c/p elements) and binomial depth ⌈log2 c⌉ — a bound, cheaper than any real one;
//   Cannon on each layer: √(p/c³) steps, each shifting one block of A along the layer's row
//     and one of B along its column, none when a layer is one rank (p = c = 1):
//     W = 2n²/√(cp) + 3n²c/p elements, S = 2√(p/c³) + 3⌈log2 c⌉ messages per rank;
//   compute: n³/p multiply-adds per rank as one GEMM of n√(c/p) × n√(c/p) × n/c.
// Ranks are placed like SUMMA's, layer by layer (L = p/c ranks each, rows of s = √L ranks),
// and each term pays the link its group needs. p/c need not be a square here (the real
// algorithm needs one; s is rounded for the placement): a bound, not a schedule. No overlap.
Estimate estimate_25d_bound(const Machine& m, std::int64_t n, int p, std::size_t elem_bytes) {
  const int c = replication_25d(p), layer = p / c;
  const int side = std::max(1, static_cast<int>(std::lround(std::sqrt(static_cast<double>(layer)))));
  const Link& row = slowest_link(
      m, p / side, [side](int g) { return g * side; }, 1, side);
  const Link& col = slowest_link(
      m, c * side, [side, layer](int g) { return (g / side) * layer + g % side; }, side, side);
  const Link& across = slowest_link(
      m, layer, [](int g) { return g; }, layer, c);
  const double pd = p, cd = c, nd = static_cast<double>(n);
  const double block_bytes = nd * nd * cd / pd * static_cast<double>(elem_bytes);
  const double shifts = p > c ? std::sqrt(pd / (cd * cd * cd)) : 0.0;
  Estimate e;
  e.comm_s = shifts * (row.seconds(block_bytes) + col.seconds(block_bytes));
  if (c > 1) e.comm_s += 3 * (log2_ceil(c) * across.alpha_s + block_bytes * across.beta_s_per_byte);
  const auto block_side = static_cast<std::int64_t>(std::ceil(nd * std::sqrt(cd / pd)));
  e.compute_s = m.gemm_seconds(block_side, block_side, ceil_div(n, c));
  e.comm_exposed_s = e.comm_s;
  e.total_s = e.comm_s + e.compute_s;
  return e;
}

}  // namespace minigpu::perfmodel
