// One MPI rank per GPU: which device a rank uses, from its node-local rank; and the CPUs it
// computes on, shared with the node's ranks whose affinity masks overlap its own.
#pragma once

#include <string>
#include <vector>

namespace minigpu {

/// The GPUs a launcher or a wrapper left this process: the first set of the variables this
/// build's runtime reads (CUDA_VISIBLE_DEVICES; ROCR_ then HIP_VISIBLE_DEVICES; any of the three
/// for emulated GPUs), its entries as written ("3", "GPU-8f2a...").
struct VisibleDevices {
  std::string variable;  ///< "" when none is set
  std::vector<std::string> ids;
};
VisibleDevices visible_devices_from_environment();

/// How many of `n` emulated GPUs a process sees under `visible`: as CUDA reads its list, the
/// entries up to the first that is not an index below n; all n when no list is set.
int visible_emulated_gpus(int n, const VisibleDevices& visible);

/// MINIGPU_GPU_MAP's device order ("4,5,2,3,6,7,0,1": the node-local rank's position in it, as
/// Slurm's --gpu-bind=map_gpu, e.g. LUMI's GPU-to-NUMA order); empty when unset. Throws
/// InputError naming the variable for anything but comma-separated indices.
std::vector<int> gpu_map_from_environment();

/// A rank's device by the first rule that applies, and that rule as the rank map records it:
/// - no GPU visible: -1, "none";
/// - one GPU visible through a list the launcher or a wrapper set (srun --gpus-per-task or
///   --gpu-bind, CUDA_VISIBLE_DEVICES from SLURM_LOCALID): 0, "launcher: CUDA_VISIBLE_DEVICES=3";
/// - a MINIGPU_GPU_MAP: its entry at local_rank modulo its length, "map: MINIGPU_GPU_MAP[1]=5"
///   (an entry past the visible GPUs wraps, with a warning);
/// - else the node-local rank modulo the visible GPUs, "local rank: 1 mod 4".
struct DeviceChoice {
  int device_id = -1;
  std::string rule = "none";
  std::string warning;  ///< "" or why the map could not be followed as written
};
DeviceChoice choose_device(int local_rank, int visible_gpus, const VisibleDevices& visible,
                           const std::vector<int>& map);

/// Where a rank sits on its node and which device it is bound to.
struct DeviceBinding {
  int local_rank = 0;
  int local_size = 1;
  int visible_gpus = 0;       ///< GPUs this process can see (CUDA_VISIBLE_DEVICES respected)
  int device_id = -1;         ///< -1: no GPU to bind
  std::string rule = "none";  ///< which rule chose device_id (choose_device)
  std::string physical_gpu;   ///< device_id's GPU as the node names it (physical_device); "" without one
  bool isolated = false;      ///< the node's ranks each see a different single GPU (per-task isolation)
  std::vector<int> cpus;      ///< this rank's affinity mask (affinity_cpus())
  int cpu_sharing_ranks = 1;  ///< node-local ranks whose masks overlap `cpus`, this one included
  std::vector<std::string> warnings;
};

/// local_rank modulo the visible GPUs, or -1 when there are none. Under
/// `srun --gpus-per-task=1` every rank sees one GPU and gets id 0.
int select_device_id(int local_rank, int visible_gpus);

/// The binding by choose_device, with warnings for oversubscribed GPUs and for GPUs left idle
/// judged from this rank's counts alone (node_binding_warnings judges from all the node's).
DeviceBinding plan_binding(int local_rank, int local_size, int visible_gpus,
                           const VisibleDevices& visible = {}, const std::vector<int>& map = {});

/// The physical GPU a binding lands on, as the node names it: its PCI bus id where the runtime
/// gives one (real GPUs), else the visible list's entry for the bound id, else the id itself;
/// "" without a GPU.
std::string physical_device(const DeviceBinding& binding, const VisibleDevices& visible);

/// From the physical devices of all the node's ranks (in node-local rank order) and the GPUs
/// each sees: which ranks share a GPU, how many GPUs stay idle, and whether the ranks are
/// isolated (each sees one GPU, all different), replacing plan_binding's per-rank guesses.
void node_binding_warnings(DeviceBinding& binding, const std::vector<std::string>& physical,
                           const std::vector<int>& visible_counts);

/// "" or the warning for GPU-aware MPI between ranks that cannot see each other's GPUs: CUDA
/// IPC (cuIpcOpenMemHandle) fails there, so the MPI stages or errors.
std::string isolation_warning(const DeviceBinding& binding, bool mpi_takes_device_memory);

/// The binding's warnings, and whether this rank's host threads (Kokkos's host concurrency, so
/// call it after Kokkos starts) oversubscribe the CPUs it shares.
std::vector<std::string> binding_warnings(const DeviceBinding& binding);
/// The device id this rank computes on: the CUDA device Kokkos was initialised on, the
/// emulated GPU it owns (its local rank modulo the emulated count), or -1 on the CPU.
int bound_device_id(const DeviceBinding& binding);

/// This rank's physical GPU as a key equal across ranks exactly when they use the same device:
/// "host|physical_gpu" (the binding's physical_device). "" on the CPU or emulated GPUs.
std::string physical_gpu_key(const std::string& host, const DeviceBinding& binding);

/// "" or why GPU timings are shared: the ranks whose keys (physical_gpu_key, in rank order)
/// coincide, e.g. "ranks 0 and 1 share one GPU (...)".
std::string shared_gpu_reason(const std::vector<std::string>& keys);

}  // namespace minigpu
