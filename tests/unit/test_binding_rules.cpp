// Which rule binds a rank to a GPU, against the layouts sites use (their user guides): Slurm's
// --gpus-per-task or a SLURM_LOCALID wrapper (one visible GPU per task), LUMI's GPU-to-NUMA
// order given as a map, and every GPU visible (the node-local rank chooses).
#include "core/binding.hpp"
#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace minigpu {
namespace {

bool has(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& line : lines)
    if (line.find(part) != std::string::npos) return true;
  return false;
}

TEST(BindingRules, OneVisibleGpuIsTheLaunchersChoice) {
  // srun --gpus-per-task=1 on the node's fourth GPU: the task sees it as device 0, whatever
  // its local rank, and a map cannot move it.
  const VisibleDevices fourth{"CUDA_VISIBLE_DEVICES", {"3"}};
  for (int local_rank : {0, 3, 5}) {
    const DeviceChoice c = choose_device(local_rank, 1, fourth, {});
    EXPECT_EQ(c.device_id, 0);
    EXPECT_EQ(c.rule, "launcher: CUDA_VISIBLE_DEVICES=3");
  }
  EXPECT_EQ(choose_device(2, 1, fourth, {1, 0}).rule, "launcher: CUDA_VISIBLE_DEVICES=3");
  // One GPU and no list: a one-GPU node, chosen by the local rank, not by a launcher.
  EXPECT_EQ(choose_device(1, 1, {}, {}).rule, "local rank: 1 mod 1");
}

TEST(BindingRules, AMapGivesTheNodesOrder) {
  // LUMI-G's order: local rank i takes GPU map[i], wrapping past the map's end.
  const std::vector<int> lumi{4, 5, 2, 3, 6, 7, 0, 1};
  EXPECT_EQ(choose_device(0, 8, {}, lumi).device_id, 4);
  EXPECT_EQ(choose_device(2, 8, {}, lumi).device_id, 2);
  EXPECT_EQ(choose_device(6, 8, {}, lumi).device_id, 0);
  const DeviceChoice wrapped = choose_device(9, 8, {}, lumi);
  EXPECT_EQ(wrapped.device_id, 5);
  EXPECT_EQ(wrapped.rule, "map: MINIGPU_GPU_MAP[1]=5");
  EXPECT_TRUE(wrapped.warning.empty());
  // An entry past the GPUs this process sees wraps, and says so.
  const DeviceChoice past = choose_device(0, 4, {}, {6});
  EXPECT_EQ(past.device_id, 2);
  EXPECT_NE(past.warning.find("names GPU 6 but this process sees 4"), std::string::npos) << past.warning;
}

TEST(BindingRules, EveryGpuVisibleMeansTheLocalRankChooses) {
  EXPECT_EQ(choose_device(3, 2, {}, {}).device_id, 1);
  EXPECT_EQ(choose_device(3, 2, {}, {}).rule, "local rank: 3 mod 2");
  // A list of several GPUs is the node's GPUs as far as this process knows.
  EXPECT_EQ(choose_device(1, 2, {"CUDA_VISIBLE_DEVICES", {"2", "3"}}, {}).rule, "local rank: 1 mod 2");
  const DeviceChoice none = choose_device(0, 0, {}, {});
  EXPECT_EQ(none.device_id, -1);
  EXPECT_EQ(none.rule, "none");
}

TEST(BindingRules, EmulatedGpusAreFilteredAsCudaFiltersRealOnes) {
  EXPECT_EQ(visible_emulated_gpus(4, {}), 4);
  EXPECT_EQ(visible_emulated_gpus(4, {"CUDA_VISIBLE_DEVICES", {"2"}}), 1);
  EXPECT_EQ(visible_emulated_gpus(4, {"CUDA_VISIBLE_DEVICES", {"1", "3"}}), 2);
  // CUDA stops at the first entry that names no device.
  EXPECT_EQ(visible_emulated_gpus(4, {"CUDA_VISIBLE_DEVICES", {"1", "7", "2"}}), 1);
  EXPECT_EQ(visible_emulated_gpus(4, {"CUDA_VISIBLE_DEVICES", {"GPU-8f2a"}}), 0);
  EXPECT_EQ(visible_emulated_gpus(4, {"CUDA_VISIBLE_DEVICES", {}}), 0) << "set but empty hides every GPU";
}

TEST(BindingRules, TheMapIsReadFromTheEnvironmentOrRefused) {
  ::unsetenv("MINIGPU_GPU_MAP");
  EXPECT_TRUE(gpu_map_from_environment().empty());
  ::setenv("MINIGPU_GPU_MAP", "4,5,2,3", 1);
  EXPECT_EQ(gpu_map_from_environment(), (std::vector<int>{4, 5, 2, 3}));
  for (const char* bad : {"4,,5", "a", "1;2", "-1", "1,"}) {
    ::setenv("MINIGPU_GPU_MAP", bad, 1);
    try {
      gpu_map_from_environment();
      ADD_FAILURE() << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("MINIGPU_GPU_MAP='" + std::string(bad) + "'"), std::string::npos)
          << e.what();
    }
  }
  ::unsetenv("MINIGPU_GPU_MAP");
}

TEST(BindingRules, TheNodeDecidesSharingIdleGpusAndIsolation) {
  // srun --gpus-per-task=1, 4 tasks: each sees one GPU, all different. No warning, isolated.
  DeviceBinding per_task = plan_binding(1, 4, 1, {"CUDA_VISIBLE_DEVICES", {"1"}});
  EXPECT_TRUE(per_task.warnings.empty()) << "one GPU each is not 4 ranks on 1 GPU";
  node_binding_warnings(per_task, {"0", "1", "2", "3"}, {1, 1, 1, 1});
  EXPECT_TRUE(per_task.isolated);
  EXPECT_TRUE(per_task.warnings.empty());
  // A wrapper that gives two tasks the same GPU.
  DeviceBinding same = plan_binding(0, 2, 1, {"CUDA_VISIBLE_DEVICES", {"0"}});
  node_binding_warnings(same, {"0", "0"}, {1, 1});
  EXPECT_FALSE(same.isolated);
  EXPECT_TRUE(has(same.warnings, "local ranks 0 and 1 on GPU 0")) << same.warnings.size();
  // Every GPU visible: 2 ranks on 4 GPUs leave 2 idle; 3 ranks on 2 share one.
  DeviceBinding idle = plan_binding(0, 2, 4);
  node_binding_warnings(idle, {"0", "1"}, {4, 4});
  EXPECT_FALSE(idle.isolated);
  EXPECT_TRUE(has(idle.warnings, "2 of 4 GPU(s) on this node stay idle"));
  DeviceBinding crowded = plan_binding(0, 3, 2);
  node_binding_warnings(crowded, {"0", "1", "0"}, {2, 2, 2});
  EXPECT_TRUE(has(crowded.warnings, "local ranks 0 and 2 on GPU 0"));
  // One rank alone is never isolated from anyone.
  DeviceBinding alone = plan_binding(0, 1, 1, {"CUDA_VISIBLE_DEVICES", {"5"}});
  node_binding_warnings(alone, {"5"}, {1});
  EXPECT_FALSE(alone.isolated);
}

TEST(BindingRules, IsolationIsWarnedOnlyWhenMpiWouldTakeDeviceMemory) {
  DeviceBinding b;
  b.rule = "launcher: CUDA_VISIBLE_DEVICES=1";
  b.isolated = true;
  EXPECT_NE(isolation_warning(b, true).find("cuIpcOpenMemHandle"), std::string::npos);
  EXPECT_EQ(isolation_warning(b, false), "") << "staged through the host anyway";
  b.isolated = false;
  EXPECT_EQ(isolation_warning(b, true), "");
}

TEST(BindingRules, ThePhysicalGpuIsTheListsEntry) {
  DeviceBinding b;
  b.device_id = 1;
  EXPECT_EQ(physical_device(b, {"CUDA_VISIBLE_DEVICES", {"4", "6"}}), "6");
  EXPECT_EQ(physical_device(b, {}), "1");
  b.device_id = -1;
  EXPECT_EQ(physical_device(b, {}), "");
}

}  // namespace
}  // namespace minigpu
