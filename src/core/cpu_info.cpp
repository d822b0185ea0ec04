// Cache sizes from sysconf (glibc reads CPUID), else from sysfs, else conservative defaults.
#include "core/cpu_info.hpp"

#include <unistd.h>

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

}  // namespace minigpu
