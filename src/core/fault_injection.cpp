#include "core/fault_injection.hpp"

#include <cstdlib>
#include <stdexcept>

namespace minigpu {

void maybe_inject_fault(const char* point, int rank) {
  const char* spec = std::getenv("MINIGPU_INJECT_FAULT");
  if (!spec) return;
  const std::string text = spec;
  if (text != std::to_string(rank) + ":" + point) return;
  throw std::runtime_error("injected fault (MINIGPU_INJECT_FAULT=" + text + ") at " + point + " on rank " +
                           std::to_string(rank));
}

}  // namespace minigpu
