// What the host CPU offers a compute kernel: its cache sizes (for blocking) and the vector
// width this build was compiled for (for register tiles).
#pragma once

#include <cstdint>
#include <string>

namespace minigpu {

/// Per-core data cache sizes in bytes, read from the OS at first use; a conservative
/// default (32 KiB, 1 MiB, 8 MiB) stands in for any level the OS does not report.
struct CpuCaches {
  std::int64_t l1d = 0, l2 = 0, l3 = 0;
};
const CpuCaches& cpu_caches();

/// Whether the host CPU is Intel's (CPUID's vendor string): the cache blocking of the native GEMM
/// differs between Intel's cores and AMD's (kernels/gemm_host.hpp), as BLIS's configurations do.
/// False on any other CPU and architecture.
bool cpu_is_intel();

/// Whether this process may run AMX's bfloat16 tile instructions: the CPU has AMX-BF16 (CPUID)
/// and Linux granted the process the tile data state, which it asks for at the first call
/// (arch_prctl ARCH_REQ_XCOMP_PERM; a process that runs a tile instruction without it is
/// killed). False elsewhere, and in builds that cannot emit the instructions.
bool host_amx_bf16();

/// The widest SIMD register the compiler may use in this build, in bytes, and its name.
#if defined(__AVX512F__)
inline constexpr int kHostVectorBytes = 64;
inline constexpr const char* kHostVectorIsa = "AVX-512";
#elif defined(__AVX__)
inline constexpr int kHostVectorBytes = 32;
inline constexpr const char* kHostVectorIsa = "AVX";
#elif defined(__ARM_FEATURE_SVE_BITS) && __ARM_FEATURE_SVE_BITS > 0
inline constexpr int kHostVectorBytes = __ARM_FEATURE_SVE_BITS / 8;
inline constexpr const char* kHostVectorIsa = "SVE";
#else
inline constexpr int kHostVectorBytes = 16;
inline constexpr const char* kHostVectorIsa = "128-bit (SSE2/NEON)";
#endif

}  // namespace minigpu
