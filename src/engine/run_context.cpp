// The run's context: its communicator shares `kernel: auto`'s measurements from rank 0.
#include "comm/collectives.hpp"
#include "engine/experiment.hpp"

namespace minigpu {

GemmPick RunContext::pick_gemm(GemmChoice choice, Device device, DType dtype, std::int64_t m, std::int64_t n,
                               std::int64_t k, const std::string& no_vendor) const {
  const comm::Communicator& c = comm;
  return gemm->pick(
      choice, device, dtype, m, n, k,
      [&c](const std::string& mine) { return comm::allgather_strings(mine, c).at(0); }, no_vendor);
}

std::optional<io::GemmChoiceRecord> RunContext::gemm_record() const {
  if (gemm && gemm->used()) return gemm->record();
  return std::nullopt;
}

}  // namespace minigpu
