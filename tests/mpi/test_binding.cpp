// Rank-to-GPU binding against known node layouts, and the node-local rank from MPI.
#include "comm/collectives.hpp"
#include "comm/node.hpp"
#include "core/backend.hpp"
#include "core/binding.hpp"
#include "core/device.hpp"
#include "core/host_threads.hpp"

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

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
  // mpirun on a one-GPU node: both ranks bind the GPU at one PCI bus id.
  EXPECT_EQ(shared_gpu_reason({"n1|0000:1b:00.0", "n1|0000:1b:00.0"}),
            "ranks 0 and 1 share one GPU (n1, GPU 0000:1b:00.0)");
  // srun --gpus-per-task=1: each rank's device 0 is a different GPU.
  EXPECT_EQ(shared_gpu_reason({"n1|0000:1b:00.0", "n1|0000:29:00.0"}), "");
  // Same GPU name on different hosts, and CPU ranks (empty keys), never share.
  EXPECT_EQ(shared_gpu_reason({"n1|0", "n2|0", "", ""}), "");
  EXPECT_EQ(shared_gpu_reason({"n1|0", "n1|1", "n1|0", "n1|0"}),
            "ranks 0, 2 and 3 share one GPU (n1, GPU 0)");
  // The key is the binding's physical GPU on its host; none on the CPU or emulated GPUs.
  DeviceBinding bound;
  bound.device_id = 0;
  bound.physical_gpu = "0000:1b:00.0";
  EXPECT_EQ(physical_gpu_key("n1", bound), kHasGpuBackend && !gpus_are_emulated() ? "n1|0000:1b:00.0" : "");
}

TEST(Binding, TheBoundGpuComesFromTheBindingHandedIn) {
  // Emulated GPUs are dealt like real ones: local rank modulo their count.
  set_emulated_gpus(2);
  DeviceBinding second, third;
  second.local_rank = 1;
  third.local_rank = 2;
  EXPECT_EQ(bound_device_id(second), 1);
  EXPECT_EQ(bound_device_id(third), 0);
  set_emulated_gpus(0);
  if (!kHasGpuBackend) {
    EXPECT_EQ(bound_device_id(third), -1) << "a host-only build computes on the cpu";
  }
  reset_emulated_gpus();
}

TEST(HostThreads, CpuListsReadAndWriteTasksetsForm) {
  EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(cpu_list_text({5}), "5");
  EXPECT_EQ(cpu_list_text({}), "");
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("3,1,1-2"), (std::vector<int>{1, 2, 3})) << "sorted, each CPU once";
  EXPECT_TRUE(parse_cpu_list("").empty());
  for (const char* bad : {"a", "1-", "3-1", "1,,2", "1;2", "-1", "1,", ","})
    EXPECT_THROW(parse_cpu_list(bad), std::invalid_argument) << bad;
  const auto mine = affinity_cpus();
  ASSERT_FALSE(mine.empty()) << "a running process has at least one CPU";
  EXPECT_EQ(parse_cpu_list(cpu_list_text(mine)), mine);
}

TEST(HostThreads, RanksTakeTheirShareOfTheCpusTheyShare) {
  // Unbound: 2 ranks on one 8-CPU mask share it, 4 threads each.
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(ranks_sharing(all, {all, all}), 2);
  EXPECT_EQ(default_host_threads(8, 2), 4);
  // Bound (--map-by slot:PE=4): masks that do not overlap are not shared.
  const std::vector<int> low{0, 1, 2, 3}, high{4, 5, 6, 7};
  EXPECT_EQ(ranks_sharing(low, {low, high}), 1);
  EXPECT_EQ(default_host_threads(4, 1), 4);
  // More ranks than CPUs: one thread each, never none.
  EXPECT_EQ(default_host_threads(2, 4), 1);
  EXPECT_EQ(ranks_sharing({}, {}), 1) << "a rank always shares with itself";
}

TEST(HostThreads, OversubscribedThreadsAreFlaggedAndOneThreadPerRankIsNot) {
  EXPECT_EQ(cpu_oversubscription(2, 4, 1), "4 rank(s) × 1 thread(s) on 2 CPU(s)") << "the runner flags it";
  EXPECT_EQ(cpu_oversubscription(2, 2, 1), "");
  EXPECT_EQ(cpu_oversubscription(0, 4, 4), "") << "an unknown mask is never flagged";
  EXPECT_EQ(host_thread_oversubscription(8, 2, 4), "");
  EXPECT_EQ(host_thread_oversubscription(2, 4, 1), "") << "more ranks than cores is the user's layout";
  const std::string crowded = host_thread_oversubscription(2, 2, 2);
  EXPECT_NE(crowded.find("2 rank(s) × 2 thread(s) on 2 CPU(s)"), std::string::npos) << crowded;
  EXPECT_NE(host_thread_oversubscription(4, 1, 8), "");
}

TEST(HostThreads, AThreadedHostSpaceGetsThisRanksShareOfTheCores) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int cpus = static_cast<int>(affinity_cpus().size());
#if defined(KOKKOS_ENABLE_OPENMP) || defined(KOKKOS_ENABLE_THREADS)
  // The test ranks run unbound on one machine, so they share every CPU (tests/support/test_main.cpp).
  const char* asked = std::getenv("OMP_NUM_THREADS");
  const int expected = asked ? std::atoi(asked) : std::max(1, cpus / size);
#else
  const int expected = 1;  // Serial
#endif
  EXPECT_EQ(Kokkos::DefaultHostExecutionSpace().concurrency(), expected)
      << size << " rank(s) on " << cpus << " CPU(s)";
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
