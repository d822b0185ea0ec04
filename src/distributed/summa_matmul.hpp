// SUMMA (van de Geijn & Watts, 1997) on a pr×pc grid: rank (I, J) holds blocks (I, J) of A, B
// and C. For each panel of k (cut where either partition of k starts a part, and at most
// `max_panel` wide) the owning column broadcasts A(I, panel) along process row I and the
// owning row B(panel, J) down column J; every rank adds A(I, panel)·B(panel, J) to its C block.
//   blocking    each panel's broadcasts finish before its product starts: all communication
//               is exposed (the chapter's first version, kept for teaching)
//   overlapped  panel s+1's broadcasts are posted (MPI_Ibcast, double-buffered panels) before
//               panel s multiplies and waited for after it. Most transports progress only
//               inside MPI calls, so MPI_Test runs while the product does: between the native
//               host kernel's cache blocks (kernels::BetweenBlocks), between chunks of C's rows
//               or columns under the vendor BLAS, whose kernels finish before their launch
//               returns; on a GPU, whose launch returns at once, in a loop until the device has
//               finished the product (gpu_work_finished). Only panel 0's broadcasts and whatever
//               outlasts a product are exposed.
// Phases: "comm" is the time the rank spends packing, posting and waiting (exposed
// communication), "compute" the local products.
#pragma once

#include "comm/pending_broadcast.hpp"
#include "core/backend.hpp"
#include "core/profile_region.hpp"
#include "distributed/blocked_matmul.hpp"
#include "kernels/gemm.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace minigpu {

struct SummaOptions {
  std::int64_t max_panel = 0;  ///< panels wider than this are cut (0: only at the partitions' cuts)
  bool overlap = false;        ///< post panel s+1's broadcasts before multiplying panel s
  /// Runs after each local product (chunk) is launched: tests slow the compute down with it to
  /// see the broadcasts travel during it (SummaMatmul::panels_arrived_during_compute).
  std::function<void()> after_product;
};

namespace detail {

template <class T, class Mem>
class SummaMatmul : public BlockedMatmul<T, Mem> {
  using Base = BlockedMatmul<T, Mem>;
  using typename Base::View;
  using Broadcast = comm::PendingBroadcast<View>;

 public:
  /// `grid.rows · grid.cols` must be the communicator's size.
  SummaMatmul(const comm::Communicator& comm, std::int64_t n, kernels::ProcessGrid grid, comm::CommPath path,
              GemmKernel kernel, SummaOptions options)
      // On one rank nothing is broadcast, so there is nothing to overlap (and the chunks would
      // only pack a panel again).
      : Base(comm, n, kernel),
        grid_(grid),
        path_(path),
        overlap_(options.overlap && grid.rows * grid.cols > 1),
        panel_whole_(summa_panel_whole(returns_at_launch, kernel)),
        after_product_(std::move(options.after_product)) {
    my_row_ = this->rank_ / grid.cols;
    my_col_ = this->rank_ % grid.cols;
    row_comm_ = comm.split(my_row_, my_col_);  // rank in row_comm_ = process column
    col_comm_ = comm.split(my_col_, my_row_);  // rank in col_comm_ = process row
    rows_ = kernels::block_partition(n, grid.rows);
    cols_ = kernels::block_partition(n, grid.cols);
    const std::int64_t mr = rows_.counts[my_row_], nc = cols_.counts[my_col_];
    this->block_ = {rows_.offsets[my_row_], mr, cols_.offsets[my_col_], nc};
    cuts_ = kernels::panel_boundaries(cols_, rows_, n, options.max_panel);
    const std::int64_t widest = kernels::widest_panel(cuts_);
    a_ = View("matmul_scaling::A_block", mr * nc);
    b_ = View("matmul_scaling::B_block", mr * nc);
    this->c_ = View("matmul_scaling::C_block", mr * nc);
    const int slots = overlap_ ? 2 : 1;  // overlapped: one panel multiplies while the next arrives
    for (int s = 0; s < slots; ++s) {
      if (grid.cols > 1) a_panel_[s] = View("matmul_scaling::A_panel", mr * widest);
      if (grid.rows > 1) b_panel_[s] = View("matmul_scaling::B_panel", widest * nc);
      if (overlap_ && path == comm::CommPath::staged) {
        stage_[s] = typename Broadcast::HostView(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "matmul_scaling::panel_stage"),
            (mr + nc) * widest);
      }
    }
    kernels::fill_generated_block(a_, kernels::small_integer_matrix(kSeedA, n), rows_.offsets[my_row_],
                                  cols_.offsets[my_col_], mr, nc);
    kernels::fill_generated_block(b_, kernels::small_integer_matrix(kSeedB, n), rows_.offsets[my_row_],
                                  cols_.offsets[my_col_], mr, nc);
    if (!overlap_) transport_ = comm::Transport<T>(path, std::max(mr, nc) * widest, "matmul_scaling::stage");
  }

  void multiply(const DistributedMatmul::PhaseEnd& end_phase) override {
    if (!overlap_) {
      for (std::size_t s = 0; s + 1 < cuts_.size(); ++s) {
        Panel p;
        {
          const ProfileRegion region("comm");
          p = locate(s, 0);
          if (grid_.cols > 1) comm::broadcast(p.a, p.a_owner, row_comm_, transport_);
          if (grid_.rows > 1) comm::broadcast(p.b, p.b_owner, col_comm_, transport_);
          end_phase("comm");
        }
        const ProfileRegion region("compute");
        multiply_panel(p, s > 0, nullptr);
        end_phase("compute");
      }
      return;
    }
    Panel current;
    {
      const ProfileRegion region("comm");
      current = locate(0, 0);
      post(current, 0).wait();
      end_phase("comm");
    }
    for (std::size_t s = 0; s + 1 < cuts_.size(); ++s) {
      const bool more = s + 2 < cuts_.size();
      const int slot = static_cast<int>((s + 1) % 2);
      Panel next;
      InFlight arriving;
      {
        const ProfileRegion region("comm");
        if (more) {
          next = locate(s + 1, slot);
          arriving = post(next, slot);
        }
        end_phase("comm");
      }
      {
        // The next panels' broadcasts progress inside this region: overlap shows as compute.
        const ProfileRegion region("compute");
        multiply_panel(current, s > 0, more ? &arriving : nullptr);
        end_phase("compute");
      }
      if (more) {
        const ProfileRegion region("comm");
        arriving.wait();
        end_phase("comm");
        current = next;
      }
    }
  }

  /// At most every panel but panel 0, each multiply(): on the host only as many as the MPI
  /// progress calls during the products let through (test_matmul_scaling, native kernel, 2 ms
  /// added after each product: 14 of 14 on 2 ranks, 12 to 14 on 4).
  int panels_arrived_during_compute() const override { return arrived_during_compute_; }

 private:
  // Where panel s of A (mr×w, rows lda apart) and of B (w×nc) are, or will arrive, on this rank.
  struct Panel {
    View a, b;
    std::int64_t w = 0, lda = 0;
    int a_owner = 0, b_owner = 0;
  };
  struct InFlight {
    Broadcast a, b;
    bool test() {
      const bool a_done = a.test();
      return b.test() && a_done;
    }
    void wait() {
      a.wait();
      b.wait();
    }
  };

  // Panel s in buffer slot `slot`; packs this rank's A columns when they are not contiguous.
  Panel locate(std::size_t s, int slot) {
    const std::int64_t mr = this->block_.rows, nc = this->block_.cols;
    Panel p;
    const std::int64_t k0 = cuts_[s];
    p.w = cuts_[s + 1] - k0;
    p.lda = p.w;
    p.a_owner = cols_.owner(k0);
    p.b_owner = rows_.owner(k0);
    const std::int64_t a_col = k0 - cols_.offsets[p.a_owner], b_row = k0 - rows_.offsets[p.b_owner];
    if (grid_.cols == 1) {  // this rank owns every column of its A rows: no message
      p.a = comm::subrange(a_, a_col, mr * nc - a_col);
      p.lda = nc;
    } else if (my_col_ == p.a_owner && p.w == nc) {  // a whole block is already contiguous
      p.a = a_;
      p.lda = nc;
    } else {
      p.a = comm::subrange(a_panel_[slot], 0, mr * p.w);
      if (my_col_ == p.a_owner)
        kernels::pack_block(p.a, comm::subrange(a_, a_col, mr * nc - a_col), mr, p.w, nc);
    }
    // Rows of a row-major block are contiguous: B's panel never needs packing.
    p.b = grid_.rows == 1 || my_row_ == p.b_owner ? comm::subrange(b_, b_row * nc, p.w * nc)
                                                  : comm::subrange(b_panel_[slot], 0, p.w * nc);
    return p;
  }

  InFlight post(const Panel& p, int slot) {
    InFlight f;
    // Staged, A's and B's broadcasts each have their own part of the slot's stage.
    typename Broadcast::HostView a_stage = stage_[slot], b_stage = stage_[slot];
    if (path_ == comm::CommPath::staged) {
      const std::int64_t a_elems = grid_.cols > 1 ? static_cast<std::int64_t>(p.a.extent(0)) : 0;
      a_stage = comm::subrange(stage_[slot], 0, a_elems);
      b_stage =
          comm::subrange(stage_[slot], a_elems, static_cast<std::int64_t>(stage_[slot].extent(0)) - a_elems);
    }
    if (grid_.cols > 1) f.a = Broadcast(p.a, p.a_owner, row_comm_, path_, a_stage);
    if (grid_.rows > 1) f.b = Broadcast(p.b, p.b_owner, col_comm_, path_, b_stage);
    return f;
  }

  // C (+)= A(panel)·B(panel), MPI progressing the broadcasts in flight while it computes: with
  // the native host kernel between its cache blocks, with the vendor BLAS between chunks of C's
  // rows or columns (its kernels finish before their launch returns), on a GPU until the device
  // has finished the one product.
  void multiply_panel(const Panel& p, bool accumulate, InFlight* in_flight) {
    const std::int64_t mr = this->block_.rows, nc = this->block_.cols;
    const auto chunks = in_flight ? kernels::progress_chunks(mr, nc, panel_whole_)
                                  : kernels::ProgressChunks{kernels::block_partition(mr, 1), false};
    bool arrived = false;
    const kernels::BetweenBlocks test = [&] { arrived = in_flight->test(); };
    const kernels::BetweenBlocks* hook = in_flight && panel_whole_ && !returns_at_launch ? &test : nullptr;
    for (int c = 0; c < chunks.parts.parts(); ++c) {
      const std::int64_t first = chunks.parts.offsets[c], count = chunks.parts.counts[c];
      if (count == 0) continue;
      if (chunks.columns) {  // columns [first, first + count) of C and B, all of A's rows
        kernels::gemm(this->kernel_, comm::subrange(this->c_, first, (mr - 1) * nc + count), p.a,
                      comm::subrange(p.b, first, (p.w - 1) * nc + count), {mr, count, p.w, p.lda, nc, nc},
                      accumulate, hook);
      } else {
        kernels::gemm(this->kernel_, comm::subrange(this->c_, first * nc, count * nc),
                      comm::subrange(p.a, first * p.lda, (count - 1) * p.lda + p.w), p.b,
                      {count, nc, p.w, p.lda, nc, nc}, accumulate, hook);
      }
      if (after_product_) after_product_();
      if (!in_flight) continue;
      arrived = in_flight->test();
      if constexpr (returns_at_launch) {
        while (!gpu_work_finished()) arrived = in_flight->test();
      }
    }
    if (arrived) ++arrived_during_compute_;
  }

  static constexpr bool returns_at_launch = !Kokkos::SpaceAccessibility<HostExecSpace, Mem>::accessible;

  kernels::ProcessGrid grid_;
  comm::CommPath path_;
  bool overlap_ = false;
  // Whether a panel's product runs whole (summa_panel_whole): fixed for the object's life, so
  // asked of MPI and the execution space once rather than every panel.
  bool panel_whole_ = false;
  int my_row_ = 0, my_col_ = 0;
  comm::Communicator row_comm_, col_comm_;
  kernels::BlockPartition rows_, cols_;
  std::vector<std::int64_t> cuts_;
  View a_, b_;
  std::array<View, 2> a_panel_, b_panel_;
  std::array<typename Broadcast::HostView, 2> stage_;
  comm::Transport<T> transport_;
  std::function<void()> after_product_;
  int arrived_during_compute_ = 0;
};

}  // namespace detail
}  // namespace minigpu
