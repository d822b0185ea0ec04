// Where glibc's memcpy starts streaming (x86_non_temporal_threshold), worked out as Debian 12's
// glibc 2.36 (2.36-9+deb12u2 and later, from the upstream 2.36 branch) does in
// sysdeps/x86/dl-cacheinfo.h: a quarter of the L3, raised to 3/4 of one thread's share of it,
// that share alone without ERMS. glibc keeps the value to itself (a hidden symbol), and its
// thread count comes from CPUID, not from the cache's size: two VMs both reporting an L3 of
// hundreds of MiB differ by 3x (a 2-vCPU Zen 5 VM, 2026-12-04: 508 MiB L3, glibc streamed from a
// quarter of it; a 2-vCPU Zen 4 VM, 2026-12-04: 320 MiB L3, one thread's share the whole of it,
// glibc streamed from 3/4 of it). test_lazy compares this with what glibc's loader lists.
#include "core/cpu_info.hpp"
#include "core/streaming_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define MINIGPU_HAS_CPUID 1
#endif

namespace minigpu {
namespace {

constexpr std::int64_t kGlibcMinimum = 0x4040;  // glibc's lower bound on the tunable

#if defined(MINIGPU_HAS_CPUID)
struct Regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};
Regs cpuid(unsigned leaf, unsigned sub = 0) {
  Regs r;
  if (!__get_cpuid_count(leaf, sub, &r.a, &r.b, &r.c, &r.d)) return {};
  return r;
}

// Logical processors sharing the L3 as glibc's get_common_cache_info counts them on Intel: CPUID
// leaf 4's L3 entry, capped by leaf 11's processors per package (a count mask of the same width).
unsigned intel_threads_sharing_l3(bool& inclusive, unsigned logical) {
  unsigned threads = 0;
  bool found = false;
  for (unsigned i = 0; i < 16 && !found; ++i) {
    const Regs r = cpuid(4, i);
    if ((r.a & 0x1f) == 0) break;
    found = ((r.a >> 5) & 7) == 3;
    if (found) {
      threads = (r.a >> 14) & 0x3ff;
      inclusive = (r.d & 2) != 0;
    }
  }
  if (!found) return logical;  // glibc: all logical processors share it
  if (threads > 0 && cpuid(0).a >= 11) {
    for (unsigned i = 0; i < 8; ++i) {
      const Regs r = cpuid(11, i);
      const unsigned shipped = r.b & 0xff, type = r.c & 0xff00;
      if (shipped == 0 || type == 0) break;
      if (type == 0x200) {  // the core level: processors in the package
        const unsigned mask = ~(~0u << (32 - __builtin_clz(threads)));
        threads = (shipped - 1) & mask;
        break;
      }
    }
  }
  return threads + 1;
}
#endif

// glibc's threshold from the CPU's caches and CPUID, before any tunable.
std::int64_t glibc_rule(const CpuCaches& caches) {
  std::int64_t shared = caches.l3, per_thread = caches.l3;
  bool erms = true;
#if defined(MINIGPU_HAS_CPUID)
  erms = (cpuid(7).b & (1u << 9)) != 0;
  const Regs leaf1 = cpuid(1);
  const bool htt = (leaf1.d & (1u << 28)) != 0;  // more than one logical processor a package
  const unsigned logical = (leaf1.b >> 16) & 0xff;
  const unsigned base_family = (leaf1.a >> 8) & 0xf;
  const unsigned family = base_family + (base_family == 0xf ? (leaf1.a >> 20) & 0xff : 0);
  if (cpu_is_intel()) {
    bool inclusive = true;
    const unsigned threads = htt ? intel_threads_sharing_l3(inclusive, logical) : 0;
    if (threads > 0) per_thread /= threads;
    if (!inclusive) {  // glibc adds the L2 where the L3 does not hold it (leaf 4's L2 count ignored)
      shared += caches.l2;
      per_thread += caches.l2;
    }
  } else if (__builtin_cpu_is("amd")) {
    unsigned threads = 1u << ((cpuid(0x80000008).c >> 12) & 0xf);
    if (family >= 0x17 && htt) threads = logical;
    if (threads > 0) per_thread /= threads;
    if (family >= 0x17) {
      per_thread *= ((cpuid(0x8000001D, 3).a >> 14) & 0xfff) + 1;  // threads sharing one CCX's L3
    } else {
      shared += caches.l2;
      per_thread += caches.l2;
    }
  }
#endif
  const std::int64_t low_bound = per_thread * 3 / 4;
  return std::max(kGlibcMinimum, erms ? std::max(shared / 4, low_bound) : low_bound);
}

}  // namespace

std::int64_t glibc_tuned_threshold(const char* tunables) {
  const std::string key = "glibc.cpu.x86_non_temporal_threshold=";
  const std::string all = tunables ? tunables : "";
  std::int64_t value = -1;
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t end = std::min(all.find(':', at), all.size());
    if (all.compare(at, key.size(), key) == 0 && end > at + key.size()) {
      char* rest = nullptr;
      const std::string digits = all.substr(at + key.size(), end - at - key.size());
      const long long v = std::strtoll(digits.c_str(), &rest, 0);
      if (rest && *rest == '\0' && v > kGlibcMinimum) value = v;  // glibc ignores the rest
    }
    at = end + 1;
  }
  return value;
}

std::int64_t streaming_store_min_bytes() {
  static const std::int64_t bytes = [] {
    const std::int64_t tuned = glibc_tuned_threshold(std::getenv("GLIBC_TUNABLES"));
    return tuned > 0 ? tuned : glibc_rule(cpu_caches());
  }();
  return bytes;
}

}  // namespace minigpu
