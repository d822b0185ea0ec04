// The run's context: its communicator shares `kernel: auto`'s measurements from rank 0.
#include "comm/typed_exchange.hpp"
#include "engine/experiment.hpp"

#include <stdexcept>

namespace minigpu {

RunContext RunContext::on(comm::Communicator comm, DeviceBinding binding, nlohmann::json gemm_cache_key) {
  RunContext ctx;
  ctx.gemm = std::make_shared<GemmChooser>(time_gemm_pair, std::move(gemm_cache_key), comm.rank() == 0);
  ctx.calibration = std::make_shared<CalibrationLog>();
  ctx.comm = std::move(comm);
  ctx.binding = std::move(binding);
  return ctx;
}

GemmPick RunContext::pick_gemm(GemmChoice choice, Device device, DType dtype, std::int64_t m, std::int64_t n,
                               std::int64_t k, const std::string& no_vendor,
                               const NativePreference& prefer) const {
  if (!gemm)
    throw std::logic_error("RunContext::pick_gemm: the context has no chooser (RunContext::on makes one)");
  const comm::Communicator& c = comm;
  return gemm->pick(
      choice, device, dtype, m, n, k,
      [&c](const std::vector<char>& mine) { return comm::broadcast_bytes(mine, 0, c); }, no_vendor, prefer);
}

std::optional<io::GemmChoiceRecord> RunContext::gemm_record() const {
  if (gemm && gemm->used()) return gemm->record();
  return std::nullopt;
}

}  // namespace minigpu
