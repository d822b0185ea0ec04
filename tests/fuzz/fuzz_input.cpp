// libFuzzer target for the input loader and planner (scripts/dev/fuzz.sh builds and runs it with
// ASan+UBSan): any bytes are written as an input file and loaded as `minigpu run` loads them,
// memory check included. An InputError is the expected answer to bad input; any other
// exception, a crash or a sanitizer report is a bug.
#include "comm/mpi_session.hpp"
#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/kokkos_session.hpp"
#include "engine/plan.hpp"
#include "engine/plan_loading.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

std::string& input_path() {
  static std::string path = "/tmp/minigpu-fuzz-" + std::to_string(::getpid()) + ".yaml";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  static minigpu::MpiSession mpi(argc, argv);
  static minigpu::KokkosSession kokkos(*argc, *argv);
  static minigpu::GpuEmulation emulation;  // what minigpu's main owns
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(input_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  minigpu::RunContext ctx = minigpu::RunContext::on(minigpu::comm::Communicator::world());
  try {
    minigpu::RunPlan plan = minigpu::load_run_plan(
        input_path(), ctx, {},
        [](const minigpu::RunSettings& s, minigpu::RunContext&) { minigpu::settle_devices(s); });
    minigpu::check_memory_fits(plan, minigpu::DeviceBinding{});
  } catch (const minigpu::InputError&) {
    // the right answer to bad input
  }
  return 0;
}
