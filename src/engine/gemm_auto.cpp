// The process's auto-kernel chooser.
#include "engine/gemm_auto.hpp"

#include "comm/collectives.hpp"
#include "kernels/matmul_vendor.hpp"

#include <memory>

namespace minigpu {
namespace {

nlohmann::json& cache_key() {
  static nlohmann::json key;
  return key;
}

std::unique_ptr<GemmChooser>& chooser() {
  static std::unique_ptr<GemmChooser> c;
  return c;
}

}  // namespace

GemmPick pick_gemm_kernel(const RunContext& ctx, GemmChoice choice, Device device, DType dtype,
                          std::int64_t m, std::int64_t n, std::int64_t k) {
  // Memory with no vendor GEMM (HIP builds: no rocBLAS in Debian 12) leaves auto one kernel.
  if (choice == GemmChoice::automatic) {
    if (const std::string refusal = kernels::vendor_gemm_refusal(device, "native"); !refusal.empty())
      return {GemmKernel::native, "auto→native (no vendor GEMM on " + describe(device) + " memory in this build)"};
  }
  if (!chooser())
    chooser() = std::make_unique<GemmChooser>(time_gemm_pair, cache_key(), ctx.comm.rank() == 0);
  const comm::Communicator& comm = ctx.comm;
  return chooser()->pick(choice, device, dtype, m, n, k, [&comm](const std::string& mine) {
    return comm::allgather_strings(mine, comm).at(0);
  });
}

void cache_gemm_choices(const nlohmann::json& key) {
  cache_key() = key;
  chooser().reset();
}

nlohmann::json gemm_choices_record() { return chooser() ? chooser()->to_json() : nlohmann::json(); }

}  // namespace minigpu
