// Computing devices as in the D2L "GPUs" chapter: cpu(), gpu(i), num_gpus(), try_gpu().
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace minigpu {

enum class DeviceKind { cpu, gpu };

/// A place where tensors live and kernels run: the host, or GPU `index`.
class Device {
 public:
  constexpr Device() = default;
  constexpr Device(DeviceKind kind, int index) : kind_(kind), index_(kind == DeviceKind::cpu ? 0 : index) {}

  constexpr DeviceKind kind() const { return kind_; }
  constexpr int index() const { return index_; }
  constexpr bool is_cpu() const { return kind_ == DeviceKind::cpu; }
  constexpr bool is_gpu() const { return kind_ == DeviceKind::gpu; }

  friend constexpr bool operator==(Device a, Device b) { return a.kind_ == b.kind_ && a.index_ == b.index_; }
  friend constexpr bool operator!=(Device a, Device b) { return !(a == b); }
  friend constexpr bool operator<(Device a, Device b) {
    return a.kind_ != b.kind_ ? a.kind_ < b.kind_ : a.index_ < b.index_;
  }

 private:
  DeviceKind kind_ = DeviceKind::cpu;
  int index_ = 0;
};

/// "cpu" or "gpu:0".
std::string to_string(Device d);
/// to_string plus " (emulated)" for emulated GPUs: what every printout shows.
std::string describe(Device d);
std::ostream& operator<<(std::ostream& os, Device d);
/// Parses "cpu", "gpu", "gpu:1" (no availability check); throws std::invalid_argument.
Device parse_device(const std::string& text);

/// The host.
Device cpu();
/// GPU i; throws DeviceNotFoundError naming how many GPUs exist when there is no GPU i.
Device gpu(int i = 0);
/// GPUs this process can compute on: 1 on a CUDA build (the GPU Kokkos was initialised
/// on), 0 on a host-only build, or N with N emulated GPUs.
int num_gpus();
/// gpu(i) if it exists, else cpu().
Device try_gpu(int i = 0);
/// Every GPU this process can use; empty if none.
std::vector<Device> try_all_gpus();
/// Throws DeviceNotFoundError unless `d` exists in this process.
void require_available(Device d);

/// The most emulated GPUs MINIGPU_EMULATE_GPUS or `run.emulate_gpus` may ask for.
constexpr int kMaxEmulatedGpus = 1024;

/// GPUs emulated in host memory. main makes one before anything asks for devices and keeps it
/// for the program's life (a test binary's main does the same); while it lives, the device
/// functions above (num_gpus(), gpu(i), try_gpu(), ...) see its GPUs, and with none alive
/// (a tool linking the library) a process has its real GPUs only. Its count is
/// MINIGPU_EMULATE_GPUS, read at first use, until set() (an input's `run.emulate_gpus`).
/// One lives at a time: a second throws std::logic_error.
class GpuEmulation {
 public:
  GpuEmulation();
  ~GpuEmulation();
  GpuEmulation(const GpuEmulation&) = delete;
  GpuEmulation& operator=(const GpuEmulation&) = delete;
  /// 0 is off. A variable that is not an integer in [0, kMaxEmulatedGpus] throws InputError.
  int count();
  /// n in [0, kMaxEmulatedGpus], else std::invalid_argument.
  void set(int n);
  /// Forgets set(): the next count() reads MINIGPU_EMULATE_GPUS again.
  void reset() { count_.reset(); }

 private:
  std::optional<int> count_;
};

/// True when GPUs are host-emulated.
bool gpus_are_emulated();
/// The living GpuEmulation's count (0 when none lives).
int emulated_gpu_count();
/// set() / reset() of the living GpuEmulation (std::logic_error when none lives): how
/// settle_devices applies `run.emulate_gpus`, and how tests emulate.
void set_emulated_gpus(int n);
void reset_emulated_gpus();
/// True when tensors on `d` are stored in host memory (cpu, or an emulated GPU).
bool uses_host_memory(Device d);

}  // namespace minigpu

template <>
struct std::hash<minigpu::Device> {
  std::size_t operator()(minigpu::Device d) const noexcept {
    return std::hash<int>()(static_cast<int>(d.kind()) * 1000003 + d.index());
  }
};
