// Rank-to-GPU binding against known node layouts, and the node-local rank from MPI.
#include "comm/collectives.hpp"
#include "comm/node.hpp"
#include "core/binding.hpp"

#include <gtest/gtest.h>

namespace minigpu {
namespace {

TEST(Binding, OneGpuPerRankRoundRobinOnTheNode) {
  // 4 GPUs, 4 ranks: one each.
  for (int r = 0; r < 4; ++r) EXPECT_EQ(select_device_id(r, 4), r);
  // 8 ranks on 4 GPUs wrap around; 2 GPUs for 3 ranks: 0, 1, 0.
  EXPECT_EQ(select_device_id(5, 4), 1);
  EXPECT_EQ(select_device_id(2, 2), 0);
  // srun --gpus-per-task=1: each rank sees exactly one GPU, always id 0.
  for (int r = 0; r < 8; ++r) EXPECT_EQ(select_device_id(r, 1), 0);
  // No GPU: nothing to bind.
  EXPECT_EQ(select_device_id(0, 0), -1);
  EXPECT_EQ(select_device_id(3, 0), -1);
}

TEST(Binding, WarnsWhenRanksShareGpusOrGpusIdle) {
  EXPECT_TRUE(plan_binding(0, 4, 4).warnings.empty());
  const auto crowded = plan_binding(1, 3, 2);
  EXPECT_EQ(crowded.device_id, 1);
  ASSERT_EQ(crowded.warnings.size(), 1u);
  EXPECT_NE(crowded.warnings[0].find("3 ranks share 2 GPU(s)"), std::string::npos);
  const auto idle = plan_binding(0, 2, 8);
  ASSERT_EQ(idle.warnings.size(), 1u);
  EXPECT_NE(idle.warnings[0].find("6 of 8 GPU(s) on this node stay idle"), std::string::npos);
  EXPECT_TRUE(plan_binding(0, 2, 0).warnings.empty()) << "a CPU-only node has nothing to warn about";
}

TEST(Binding, RanksOnOnePhysicalGpuAreNamedAndOthersAreNot) {
  // mpirun on a one-GPU node: both ranks see the same list and bind device 0.
  EXPECT_EQ(shared_gpu_reason({"n1|CUDA_VISIBLE_DEVICES=0;|0", "n1|CUDA_VISIBLE_DEVICES=0;|0"}),
            "ranks 0 and 1 share one GPU (n1, device 0)");
  // srun --gpus-per-task=1: each rank sees a different single GPU as device 0.
  EXPECT_EQ(shared_gpu_reason({"n1|CUDA_VISIBLE_DEVICES=0;|0", "n1|CUDA_VISIBLE_DEVICES=1;|0"}), "");
  // Same id on different hosts, and CPU ranks (empty keys), never share.
  EXPECT_EQ(shared_gpu_reason({"n1||0", "n2||0", "", ""}), "");
  EXPECT_EQ(shared_gpu_reason({"n1||0", "n1||1", "n1||0", "n1||0"}),
            "ranks 0, 2 and 3 share one GPU (n1, device 0)");
}

TEST(Binding, NodeLocalRankComesFromMpi) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto node = comm::node_local(comm::Communicator::world());
  // Every test rank runs on this one machine, so the node holds the whole job in order.
  EXPECT_EQ(node.size, size);
  EXPECT_EQ(node.rank, rank);
  const double ranks_counted = comm::sum_over_ranks(node.rank == 0 ? 1.0 : 0.0, comm::Communicator::world());
  EXPECT_EQ(ranks_counted, 1.0) << "exactly one local rank 0 per node";
}

TEST(Collectives, ReduceOverRanks) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(comm::max_over_ranks(double(rank), comm::Communicator::world()), size - 1);
  EXPECT_EQ(comm::min_over_ranks(double(rank), comm::Communicator::world()), 0);
  EXPECT_EQ(comm::sum_over_ranks(1.0, comm::Communicator::world()), size);
  EXPECT_FALSE(comm::all_ranks(rank != size - 1, comm::Communicator::world())) << "false on the last rank";
  EXPECT_TRUE(comm::all_ranks(true, comm::Communicator::world()));
  const auto v =
      comm::max_over_ranks(std::vector<double>{double(rank), double(-rank)}, comm::Communicator::world());
  EXPECT_EQ(v, (std::vector<double>{double(size - 1), 0.0}));
  const auto names = comm::allgather_strings(std::string(rank + 1, 'x'), comm::Communicator::world());
  ASSERT_EQ(names.size(), std::size_t(size));
  for (int r = 0; r < size; ++r) EXPECT_EQ(names[r], std::string(r + 1, 'x'));
}

}  // namespace
}  // namespace minigpu
