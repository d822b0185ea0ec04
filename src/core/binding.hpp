// One MPI rank per GPU: which device a rank uses, from its node-local rank; and the CPUs it
// computes on, shared with the node's ranks whose affinity masks overlap its own.
#pragma once

#include <string>
#include <vector>

namespace minigpu {

/// Where a rank sits on its node and which device it is bound to.
struct DeviceBinding {
  int local_rank = 0;
  int local_size = 1;
  int visible_gpus = 0;       ///< GPUs this process can see (CUDA_VISIBLE_DEVICES respected)
  int device_id = -1;         ///< -1: no GPU to bind
  std::vector<int> cpus;      ///< this rank's affinity mask (affinity_cpus())
  int cpu_sharing_ranks = 1;  ///< node-local ranks whose masks overlap `cpus`, this one included
  std::vector<std::string> warnings;
};

/// local_rank modulo the visible GPUs, or -1 when there are none. Under
/// `srun --gpus-per-task=1` every rank sees one GPU and gets id 0.
int select_device_id(int local_rank, int visible_gpus);

/// The binding with warnings for oversubscribed GPUs and for GPUs left idle.
DeviceBinding plan_binding(int local_rank, int local_size, int visible_gpus);

/// The binding's warnings, and whether this rank's host threads (Kokkos's host concurrency, so
/// call it after Kokkos starts) oversubscribe the CPUs it shares.
std::vector<std::string> binding_warnings(const DeviceBinding& binding);
/// The device id this rank computes on: the CUDA device Kokkos was initialised on, the
/// emulated GPU it owns (its local rank modulo the emulated count), or -1 on the CPU.
int bound_device_id(const DeviceBinding& binding);

/// This rank's physical GPU as a key equal across ranks exactly when they use the same device:
/// host, the visible-device list (mpirun hands every rank of a node the same one; srun
/// --gpus-per-task a different one each) and the bound id. "" on the CPU or emulated GPUs.
std::string physical_gpu_key(const std::string& host);

/// "" or why GPU timings are shared: the ranks whose keys (physical_gpu_key, in rank order)
/// coincide, e.g. "ranks 0 and 1 share one GPU (...)".
std::string shared_gpu_reason(const std::vector<std::string>& keys);

}  // namespace minigpu
