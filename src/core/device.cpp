// Device rules: availability, fallback and GPU emulation. Backend facts come from backend.hpp.
#include "core/device.hpp"

#include "core/backend.hpp"
#include "core/binding.hpp"
#include "core/errors.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <ostream>
#include <stdexcept>

namespace minigpu {
namespace {

// main's GpuEmulation: the one pointer the chapter's device functions need, since they take
// no handle (num_gpus(), try_gpu() as the chapter writes them).
std::atomic<GpuEmulation*> living_emulation{nullptr};

GpuEmulation& living() {
  GpuEmulation* e = living_emulation.load(std::memory_order_acquire);
  if (e == nullptr) throw std::logic_error("no GpuEmulation lives: main makes one before devices are used");
  return *e;
}

int emulated_from_environment() {
  const char* text = std::getenv("MINIGPU_EMULATE_GPUS");
  if (text == nullptr || *text == '\0') return 0;
  // Shown cut: the variable is the user's, and may be anything.
  std::string shown(text, std::min<std::size_t>(std::strlen(text), 40));
  if (shown.size() < std::strlen(text)) shown += "...";
  const std::string what = "MINIGPU_EMULATE_GPUS='" + shown + "' ";
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(text, &end, 10);
  if (*end != '\0' || end == text) throw InputError(what + "must be an integer (a GPU count)");
  if (n < 0) throw InputError(what + "must be >= 0");
  if (errno == ERANGE || n > kMaxEmulatedGpus) {
    throw InputError(what + "is too large (max " + std::to_string(kMaxEmulatedGpus) + ")");
  }
  // Emulated like real ones: a launcher's or wrapper's CUDA_VISIBLE_DEVICES=3 leaves one.
  return visible_emulated_gpus(static_cast<int>(n), visible_devices_from_environment());
}

int real_gpu_count() {
  // One GPU per process by design: the one Kokkos was initialised on.
  return kHasGpuBackend && visible_gpu_count() > 0 ? 1 : 0;
}

}  // namespace

std::string to_string(Device d) {
  return d.is_cpu() ? std::string("cpu") : "gpu:" + std::to_string(d.index());
}

std::string describe(Device d) {
  return d.is_gpu() && gpus_are_emulated() ? to_string(d) + " (emulated)" : to_string(d);
}

std::ostream& operator<<(std::ostream& os, Device d) { return os << to_string(d); }

Device parse_device(const std::string& text) {
  if (text == "cpu") return cpu();
  if (text == "gpu") return Device(DeviceKind::gpu, 0);
  if (text.rfind("gpu:", 0) == 0 && text.size() > 4) {
    std::size_t used = 0;
    int index = -1;
    try {
      index = std::stoi(text.substr(4), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == text.size() - 4 && index >= 0) return Device(DeviceKind::gpu, index);
  }
  throw std::invalid_argument("'" + text + "' is not a device (expected cpu, gpu or gpu:N)");
}

GpuEmulation::GpuEmulation() {
  GpuEmulation* none = nullptr;
  if (!living_emulation.compare_exchange_strong(none, this, std::memory_order_acq_rel)) {
    throw std::logic_error("a GpuEmulation already lives: one per process, made by main");
  }
}

GpuEmulation::~GpuEmulation() { living_emulation.store(nullptr, std::memory_order_release); }

int GpuEmulation::count() {
  if (!count_) count_ = emulated_from_environment();
  return *count_;
}

void GpuEmulation::set(int n) {
  if (n < 0 || n > kMaxEmulatedGpus) {
    throw std::invalid_argument("emulated GPU count must be in [0, " + std::to_string(kMaxEmulatedGpus) +
                                "]");
  }
  count_ = n;
}

int emulated_gpu_count() {
  GpuEmulation* e = living_emulation.load(std::memory_order_acquire);
  return e == nullptr ? 0 : e->count();
}

void set_emulated_gpus(int n) { living().set(n); }

void reset_emulated_gpus() { living().reset(); }

bool gpus_are_emulated() { return emulated_gpu_count() > 0; }

int num_gpus() { return gpus_are_emulated() ? emulated_gpu_count() : real_gpu_count(); }

Device cpu() { return Device(); }

Device gpu(int i) {
  const Device d(DeviceKind::gpu, i);
  require_available(d);
  return d;
}

void require_available(Device d) {
  if (d.is_cpu()) return;
  const int n = num_gpus();
  if (d.index() < 0 || d.index() >= n) {
    throw DeviceNotFoundError("no device gpu:" + std::to_string(d.index()) + ": this process has " +
                              std::to_string(n) + (n == 1 ? " GPU" : " GPUs") +
                              (gpus_are_emulated() ? " (emulated)" : ""));
  }
}

Device try_gpu(int i) { return i >= 0 && i < num_gpus() ? Device(DeviceKind::gpu, i) : cpu(); }

std::vector<Device> try_all_gpus() {
  std::vector<Device> all;
  all.reserve(static_cast<std::size_t>(std::max(0, num_gpus())));
  for (int i = 0; i < num_gpus(); ++i) all.emplace_back(DeviceKind::gpu, i);
  return all;
}

bool uses_host_memory(Device d) { return d.is_cpu() || gpus_are_emulated() || !kHasGpuBackend; }

}  // namespace minigpu
