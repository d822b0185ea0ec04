// The machine's own reference figures ("ceilings"), measured in this process so that every
// GB/s and GFLOP/s a run reports can be read as a share of what this machine does at best:
//   host_memcpy      std::memcpy of a buffer well beyond the last-level cache (bytes copied once,
//                    the transfer experiment's accounting)
//   host_triad       STREAM's triad a = b + s·c on the host execution space (3 arrays of doubles)
//   host_fma_f32/f64 the arithmetic peak: independent FMA chains in vector registers
//                    (kernels/fma_peak.hpp), what no GEMM can exceed
//   blas_sgemm/dgemm the host vendor BLAS (the one the `vendor` kernels call) at its fastest of
//                    n = 64 … 1024 (ceilings/gemm_measure.hpp: small products run from cache)
//   native_sgemm/…   miniGPU's own host GEMM (`tiled`, `native`), the same way
//   host_sgemm/dgemm the faster of those two: what host GEMM rows are a share of
//   blas_sbgemm, native_sbgemm, host_sbgemm   the same in bfloat16, where the CPU has AVX512_BF16:
//                    oneDNN's matmul, miniGPU's bfloat16 kernel (vdpbf16ps, or AMX's tiles),
//                    the faster (rank's threads only)
// and on a build with a real GPU, for the GPU this rank runs on:
//   gpu_d2d, gpu_h2d_pinned, gpu_d2h_pinned   deep_copy of 256 MiB
//   gpu_triad                                 the triad on the GPU
//   gpu_sgemm/dgemm                           the GPU's vendor BLAS (cuBLAS) at n = 4096
//   gpu_fma_f32/f64                           the FMA peak of the CUDA cores (kernels/fma_peak.hpp)
// Each is the best of several repetitions after a warm-up: a ceiling is what is reachable.
// Measured once per host and build and cached (ceilings_cache_dir()).
#pragma once

#include "core/device.hpp"
#include "core/gemm_dims.hpp"
#include "core/shape.hpp"
#include "io/ceiling_table.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace minigpu {

/// The ceiling a case's rate is bounded by, by name ("" for none): the experiments' side.
std::string copy_ceiling(Device device, bool host_to_device, bool device_to_host);
std::string stream_ceiling(Device device);
std::string gemm_ceiling(Device device, DType dtype);
/// The arithmetic peak a GEMM ceiling's rows are also a share of: host_fma_f32 for host_sgemm
/// (float32 and float16 rows, which compute in float), host_fma_f64 for host_dgemm, and
/// gpu_fma_f32/f64 (the CUDA cores') for gpu_sgemm/dgemm; "" for the others (bfloat16's
/// vdpbf16ps and AMX peaks and the tensor cores' are not measured: the datasheet stands for
/// them).
std::string arithmetic_peak_for(const std::string& gemm_ceiling);
/// The peak a GEMM row of `kernel` on `device` in `dtype` is a share of: arithmetic_peak_for its
/// GEMM ceiling, but none for the vendor's float64 on a GPU, which cuBLAS runs on the FP64
/// tensor cores (Ampere on): 205 % of the CUDA cores' measured peak at n = 10000 on an H200.
std::string gemm_peak(Device device, DType dtype, GemmKernel kernel);
/// True where `minigpu ceilings` measures host_sbgemm: both bfloat16 GEMMs run (oneDNN, and
/// vdpbf16ps, or AMX's tiles, in this build).
bool host_sbgemm_measured();

/// A measured table, and "" or how its figures contradict each other (ceiling_contradictions).
struct MeasuredCeilings {
  CeilingTable table;
  std::string contradictions;
  bool interrupted = false;  ///< `stopped` said so before every figure was measured: a partial table
};
/// Measures every ceiling this process's build and devices have (about two seconds on a host).
/// The table is doubtful (CeilingTable::doubt) when its figures contradict each other or the
/// machine was loaded meanwhile (core/machine_load.hpp).
/// `stopped`, polled between figures, ends the measurement early (MeasuredCeilings::interrupted).
/// `only`, when not empty, names the figures to measure (as the table names them): the rest are
/// skipped, and a name this build and machine do not measure is simply absent from the table.
MeasuredCeilings measure_ceilings(const std::function<bool()>& stopped = {},
                                  const std::vector<std::string>& only = {});
/// "" or the figures where the rank's threads measured below one thread by more than
/// kContradictionMargin (host_memcpy below host_memcpy_1core, ...), or where the FMA peak on
/// `cores` physical cores gained less than kMinCoreScaling of one thread's rate per core past the
/// first (it needs nothing the cores share: its threads shared a core, with another process or
/// through a binding): a machine busy while they ran, never what the machine does. Such a table
/// is never cached; one measured on a loaded machine is, with its doubt, which every run that
/// uses it repeats. `cores` 0 or 1 (unknown, or one core) skips the FMA check.
inline constexpr double kContradictionMargin = 0.10;
/// Half a core: all-core AVX-512 clocks cost server CPUs up to ~40 % against one core's turbo.
inline constexpr double kMinCoreScaling = 0.5;
std::string ceiling_contradictions(const CeilingTable& table, int cores);
/// The physical cores the rank's host threads ran on: its threads, at most the cores of its
/// affinity mask (SMT siblings count once); 0 where the topology cannot be read.
int ceiling_cores();

/// What a cached table must match to be reused: `build` (the caller's version, compiler and
/// flags), host, CPU, BLAS and its threading, Kokkos backends and threads, GPUs (real or
/// emulated), and the environment that changes them.
nlohmann::json ceilings_cache_key(const nlohmann::json& build);
/// $MINIGPU_CEILINGS_DIR, else $XDG_CACHE_HOME/minigpu, else $HOME/.cache/minigpu.
std::string ceilings_cache_dir();
/// The JSON cached as `kind` ("ceilings", "gemm-choices") for this key, if there and readable;
/// `path` is the file's, found or not.
std::optional<nlohmann::json> load_cached(const std::string& kind, const nlohmann::json& key,
                                          std::string& path);
/// Writes `body` with the key beside it; returns the file's path, or "" with `why` set.
std::string store_cached(const std::string& kind, const nlohmann::json& key, nlohmann::json body,
                         std::string& why);
/// The cached table for this key, if one is there and readable.
std::optional<CeilingTable> load_cached_ceilings(const nlohmann::json& key);
/// Writes the table for `key`, measured at UTC time `measured`; returns the file's path, or ""
/// with `why` set when it cannot.
std::string store_ceilings(const CeilingTable& table, const nlohmann::json& key, const std::string& measured,
                           std::string& why);

}  // namespace minigpu
