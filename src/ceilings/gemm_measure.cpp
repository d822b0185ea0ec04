// The GEMM ceilings (gemm_measure.hpp): the vendor BLAS and miniGPU's own kernel, each at its
// best size, and the faster of the two as the bound host GEMM rows are a share of.
#include "ceilings/gemm_measure.hpp"

#include "core/backend.hpp"
#include "core/backend_blas.hpp"
#include "core/stopwatch.hpp"
#include "io/format.hpp"
#include "kernels/fill_integers.hpp"
#include "kernels/gemm_block.hpp"
#include "kernels/matmul_widened.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <utility>

namespace minigpu {

GemmRate fastest_gemm(const std::vector<GemmRate>& rates) {
  GemmRate best;
  for (const GemmRate& r : rates)
    if (r.gflops > best.gflops) best = r;
  return best;
}

namespace {

constexpr std::int64_t kGpuGemmN = 4096;
// As many as the other ceilings take: a run's best GEMM row is, by design, the same kernel at the
// same size, and with the best of 3 its median passed the ceiling half the time (111.009 against
// 111.0 GFLOP/s).
constexpr int kGemmRepetitions = kCeilingTimings;
// Flops a timing holds at least: one product at n = 512, so that a small product's call overhead
// and the clock's resolution drop out (n = 64 repeats 512 times).
constexpr double kMinFlopsPerTiming = 2.0 * 512 * 512 * 512;

// Which GEMM a ceiling times: the vendor BLAS on the host or the GPU, or miniGPU's own host kernel.
enum class GemmSource { host_vendor, gpu_vendor, host_native };

// The rate of `source` on square products of each size in `sizes`, in memory Mem.
template <class T, class Mem>
std::vector<GemmRate> gemm_rates(GemmSource source, const std::vector<std::int64_t>& sizes) {
  const std::int64_t largest = *std::max_element(sizes.begin(), sizes.end());
  Kokkos::View<T*, Mem> a_all("minigpu::ceilings::gemm_a", largest * largest),
      b_all("minigpu::ceilings::gemm_b", largest * largest),
      c_all("minigpu::ceilings::gemm_c", largest * largest);
  kernels::fill_small_integers(a_all, 3);
  kernels::fill_small_integers(b_all, 4);
  std::vector<GemmRate> rates;
  for (const std::int64_t n : sizes) {
    // The leading n·n elements of each array, as Views of exactly that many: bfloat16's widened
    // product maps over the whole of C (a View of largest² read n² floats past their end).
    const auto first = std::make_pair(std::int64_t(0), n * n);
    const Kokkos::View<T*, Mem> a = Kokkos::subview(a_all, first), b = Kokkos::subview(b_all, first),
                                c = Kokkos::subview(c_all, first);
    const GemmDims d{n, n, n, n, n, n};
    const double flops = 2.0 * static_cast<double>(n * n * n);
    const auto passes = static_cast<std::int64_t>(std::max(1.0, kMinFlopsPerTiming / flops));
    kernels::WidenedMatmul<Mem, T> through_float;  // bfloat16's native product, as matmul's `tiled` runs it
    if constexpr (sizeof(T) == 2) through_float = kernels::WidenedMatmul<Mem, T>(n);
    const auto once = [&] {
      if constexpr (sizeof(T) == 2) {
        if (source == GemmSource::host_vendor) {
          host_mixed_gemm(DType::bf16, a.data(), b.data(), c.data(), d);
        } else {
          through_float(c, a, b, n);
        }
      } else if (source == GemmSource::gpu_vendor) {
        gpu_vendor_gemm<T>(a.data(), b.data(), c.data(), d, false, nullptr);
      } else if (source == GemmSource::host_vendor) {
        host_vendor_gemm<T>(a.data(), b.data(), c.data(), d, false, nullptr);
      } else {
        kernels::gemm_native(c, a, b, d, false);
      }
    };
    const double s = best_fenced_seconds(
        [&] {
          for (std::int64_t i = 0; i < passes; ++i) once();
        },
        kGemmRepetitions);
    rates.push_back({n, flops * static_cast<double>(passes) / s / 1e9});
  }
  return rates;
}

std::string sizes_text(const std::vector<GemmRate>& rates) {
  std::string out;
  for (const GemmRate& r : rates) out += (out.empty() ? "" : ", ") + std::to_string(r.n);
  return out;
}

// `one_core`: the host kernels on one thread (the BLAS capped at 1, native on OneThreadExecSpace).
template <class T>
Ceiling gemm_ceiling_of(GemmSource source, const std::string& label, bool one_core = false) {
  const bool on_gpu = source == GemmSource::gpu_vendor;
  const std::vector<std::int64_t> sizes =
      on_gpu ? std::vector<std::int64_t>{kGpuGemmN}
             : std::vector<std::int64_t>(std::begin(kHostGemmCeilingSizes), std::end(kHostGemmCeilingSizes));
  const std::string prefix = on_gpu ? "gpu_" : source == GemmSource::host_native ? "native_" : "blas_";
  const std::string kind = sizeof(T) == 8 ? "dgemm" : sizeof(T) == 4 ? "sgemm" : "sbgemm";  // BLAS's names
  const std::string name = prefix + kind + (one_core ? "_1core" : "");
  std::vector<GemmRate> rates;
  if constexpr (sizeof(T) == 2) {  // bfloat16 is measured on the host alone
    rates = gemm_rates<T, HostMemSpace>(source, sizes);
  } else {
    rates = on_gpu     ? gemm_rates<T, GpuMemSpace>(source, sizes)
            : one_core ? gemm_rates<T, Kokkos::Device<OneThreadExecSpace, HostMemSpace>>(source, sizes)
                       : gemm_rates<T, HostMemSpace>(source, sizes);
  }
  const GemmRate best = fastest_gemm(rates);
  const std::string at = "n=" + std::to_string(best.n);
  return {name, label, best.gflops, "GFLOP/s",
          rates.size() == 1 ? kind + " " + at + " (2n^3 flops), best of " + std::to_string(kGemmRepetitions)
                            : kind + " at n=" + sizes_text(rates) + ", fastest at " + at +
                                  " (2n^3 flops, at least 2*512^3 a timing), best of " +
                                  std::to_string(kGemmRepetitions) + " each"};
}

// The host's GEMM bound: the faster of the vendor BLAS and miniGPU's own kernel, so that no
// host GEMM row can pass its ceiling because the BLAS runs kernels older than the CPU.
Ceiling best_host_gemm(const Ceiling& vendor, const Ceiling& native, const std::string& name) {
  const Ceiling& best = vendor.value >= native.value ? vendor : native;
  const std::string kind = name.substr(5, name.find('_', 5) - 5);  // host_<kind>[_1core]
  return {name, "best host " + kind + " (" + best.label + ")", best.value, "GFLOP/s",
          "the faster of " + vendor.name + " (" + std::to_string(static_cast<int>(vendor.value + 0.5)) +
              " GFLOP/s) and " + native.name + " (" + std::to_string(static_cast<int>(native.value + 0.5)) +
              " GFLOP/s)"};
}

}  // namespace

void add_host_gemm(CeilingTable& t, const std::string& kind, bool one_core) {
  const bool f32 = kind == "sgemm", bf16 = kind == "sbgemm";
  const std::string suffix = one_core ? "_1core" : "";
  const int kokkos_threads = one_core ? 1 : HostExecSpace().concurrency();
  // bfloat16's vendor is oneDNN on Kokkos's OpenMP threads, not the BLAS.
  const std::string vendor_label =
      bf16 ? host_bf16_gemm_library() + " bfloat16 matmul, " + io::counted(kokkos_threads, "thread")
           : host_blas_info().library + " " + kind + ", " +
                 io::counted(one_core ? 1 : host_blas_info().threads, "thread");
  const std::string native_label = "miniGPU tiled " + kind + ", " + io::counted(kokkos_threads, "thread");
  const auto measure = [&](GemmSource source, const std::string& label) {
    if (bf16) return gemm_ceiling_of<bfloat16>(source, label, one_core);
    return f32 ? gemm_ceiling_of<float>(source, label, one_core)
               : gemm_ceiling_of<double>(source, label, one_core);
  };
  const Ceiling vendor = measure(GemmSource::host_vendor, vendor_label);
  const Ceiling native = measure(GemmSource::host_native, native_label);
  const Ceiling best = best_host_gemm(vendor, native, "host_" + kind + suffix);
  if (one_core) {
    t.ceilings.push_back(best);  // its `how` names both candidates' figures
  } else {
    t.ceilings.insert(t.ceilings.end(), {vendor, native, best});
  }
}

void add_gpu_gemm(CeilingTable& t) {
  t.ceilings.push_back(gemm_ceiling_of<float>(GemmSource::gpu_vendor, std::string(kGpuBlasName) + " sgemm"));
  t.ceilings.push_back(gemm_ceiling_of<double>(GemmSource::gpu_vendor, std::string(kGpuBlasName) + " dgemm"));
}

}  // namespace minigpu
