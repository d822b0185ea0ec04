// Row picking for findings(): see findings.hpp.
#include "engine/findings.hpp"

namespace minigpu {

const CaseResult* best_row(const ResultRows& rows, double CaseResult::*rate) {
  const CaseResult* best = nullptr;
  // Strictly greater: on a tie the earlier case stays, as a reader scanning the table would pick.
  for (const CaseResult* r : rows) {
    if (!best || r->*rate > best->*rate) best = r;
  }
  return best;
}

std::vector<DType> dtypes_of(const std::vector<CaseResult>& results) {
  std::vector<DType> out;
  for (const auto& r : results) {
    if (std::find(out.begin(), out.end(), r.spec.dtype) == out.end()) out.push_back(r.spec.dtype);
  }
  return out;
}

}  // namespace minigpu
