// Cache sizes from sysconf (glibc reads CPUID), else from sysfs, else conservative defaults; AMX
// from CPUID and the kernel's permission.
#include "core/cpu_info.hpp"

#include <unistd.h>

#if defined(__AMX_TILE__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#endif

#include <fstream>
#include <string>

namespace minigpu {
namespace {

// /sys/devices/system/cpu/cpu0/cache/indexN/size reads like "48K" or "2048K".
std::int64_t sysfs_cache_bytes(int level, bool data) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
    int l = 0;
    std::string type, size;
    if (!(level_file >> l) || !(type_file >> type) || !(size_file >> size) || l != level) continue;
    if (data && type == "Instruction") continue;
    std::int64_t value = 0;
    std::size_t used = 0;
    try {
      value = std::stoll(size, &used);
    } catch (...) {
      continue;
    }
    const char unit = used < size.size() ? size[used] : ' ';
    return unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : value;
  }
  return 0;
}

std::int64_t cache_bytes(int sysconf_name, int level, bool data, std::int64_t fallback) {
  long reported = -1;
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  reported = sysconf(sysconf_name);
#else
  (void)sysconf_name;
#endif
  if (reported > 0) return reported;
  const std::int64_t from_sysfs = sysfs_cache_bytes(level, data);
  return from_sysfs > 0 ? from_sysfs : fallback;
}

}  // namespace

const CpuCaches& cpu_caches() {
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  static const CpuCaches caches{cache_bytes(_SC_LEVEL1_DCACHE_SIZE, 1, true, 32 << 10),
                                cache_bytes(_SC_LEVEL2_CACHE_SIZE, 2, false, 1 << 20),
                                cache_bytes(_SC_LEVEL3_CACHE_SIZE, 3, false, 8 << 20)};
#else
  static const CpuCaches caches{cache_bytes(0, 1, true, 32 << 10), cache_bytes(0, 2, false, 1 << 20),
                                cache_bytes(0, 3, false, 8 << 20)};
#endif
  return caches;
}

bool cpu_is_intel() {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  static const bool intel = __builtin_cpu_is("intel");
  return intel;
#else
  return false;
#endif
}

bool host_amx_bf16() {
#if defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(__linux__) && defined(SYS_arch_prctl)
  static const bool granted = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(edx & (1u << 22))) return false;  // AMX-BF16
    constexpr long kReqXcompPerm = 0x1023, kXtiledata = 18;  // <asm/prctl.h>, Linux 5.16
    return syscall(SYS_arch_prctl, kReqXcompPerm, kXtiledata) == 0;
  }();
  return granted;
#else
  return false;
#endif
}

}  // namespace minigpu
