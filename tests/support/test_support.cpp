// Device arrangement for the device tests.
#include "test_support.hpp"

#include "core/backend.hpp"
#include "io/format.hpp"

namespace minigpu::testing {

std::string name_of(TestDevice kind) {
  return kind == TestDevice::cpu ? "cpu" : kind == TestDevice::emulated ? "emulated" : "gpu";
}

Device arrange_device(TestDevice kind, std::string& skip_reason) {
  skip_reason.clear();
  set_emulated_gpus(kind == TestDevice::emulated ? 2 : 0);
  if (kind == TestDevice::cpu) return cpu();
  if (num_gpus() == 0) {
    skip_reason = "no real GPU: this build's Kokkos backends are " + io::bracketed(kokkos_backends()) +
                  " and the node shows " + std::to_string(visible_gpu_count()) + " GPUs";
    return cpu();
  }
  return gpu(0);
}

}  // namespace minigpu::testing
