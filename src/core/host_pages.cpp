#include "core/host_pages.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace minigpu {

void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  (void)madvise(p, bytes, MADV_HUGEPAGE);  // advice: refused (EINVAL where THP is off) is the plain path
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace minigpu
