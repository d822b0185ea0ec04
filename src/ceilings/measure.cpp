// How each ceiling is measured: best rate of a few repetitions after one warm-up, fenced.
#include "ceilings/ceilings.hpp"
#include "ceilings/gemm_measure.hpp"

#include "core/backend.hpp"
#include "core/backend_blas.hpp"
#include "core/cpu_info.hpp"
#include "core/environment.hpp"
#include "core/host_pages.hpp"
#include "core/host_threads.hpp"
#include "core/machine_load.hpp"
#include "core/stopwatch.hpp"
#include "io/format.hpp"
#include "kernels/byte_copy.hpp"
#include "kernels/fill_integers.hpp"
#include "kernels/fma_peak.hpp"
#include "kernels/triad.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <stdexcept>

namespace minigpu {
namespace {

constexpr int kRepetitions = kCeilingTimings;
constexpr std::int64_t kGpuCopyBytes = std::int64_t(256) << 20;

std::string mib(std::int64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

double best_seconds(const std::function<void()>& once, int repetitions = kRepetitions) {
  return best_fenced_seconds(once, repetitions);
}

/// Beyond the last-level cache, so the copy runs from memory: 4 x L3 within [64, 256] MiB
/// (a VM may report a host-sized L3, and first-touching gigabytes costs seconds).
std::int64_t host_stream_bytes() {
  return std::clamp<std::int64_t>(4 * cpu_caches().l3, std::int64_t(64) << 20, std::int64_t(256) << 20);
}

// In-cache sizes of the host's bandwidth ceilings, per array, a factor of 4 apart: from within
// L1/L2 to beyond L3 on the CPUs miniGPU runs on (a factor of 16 set a 12 MB lazy case, in L3,
// against a 48 MiB triad, out of it: 137 %). A case is set against the smallest at least its own
// size (CeilingTable::find_for), so that data in a cache meet a ceiling in the same cache: the
// OS's cache sizes cannot say which (a virtual machine reports the host's 508 MiB L3).
constexpr std::int64_t kInCacheBytes[] = {std::int64_t(64) << 10, std::int64_t(256) << 10,
                                          std::int64_t(1) << 20, std::int64_t(4) << 20,
                                          std::int64_t(16) << 20};

// Repetitions of a small kernel inside one timed call, so that each call moves as many bytes
// as one from memory does and the clock's resolution and a call's overhead drop out.
std::int64_t passes_for(std::int64_t bytes_per_pass) {
  return std::max<std::int64_t>(1, host_stream_bytes() / std::max<std::int64_t>(1, bytes_per_pass));
}

// "@64KiB": a sized ceiling's name ends in its size per array; the streaming one's has none.
std::string size_suffix(std::int64_t bytes, std::int64_t stream_bytes) {
  if (bytes == stream_bytes) return "";
  return "@" +
         (bytes % (1 << 20) == 0 ? std::to_string(bytes >> 20) + "MiB" : std::to_string(bytes >> 10) + "KiB");
}

template <class Exec>
Ceiling triad_ceiling(const std::string& name, const std::string& label, std::int64_t array_bytes,
                      std::int64_t passes = 1) {
  using Mem = Kokkos::Device<Exec, typename Exec::memory_space>;
  const std::int64_t n = array_bytes / 8;
  // On huge pages where the kernel grants them (host_pages.hpp), as STREAM's and likwid-bench's
  // arrays get them: on 4 KiB pages the triad read 0.70-0.93 of likwid-bench's. 1 KiB apart
  // within their pages, as STREAM's OFFSET sets them (huge_page_view: 4K aliasing).
  constexpr std::int64_t kApart = 1024 / 8;
  const auto a = huge_page_view<double, Mem>("minigpu::ceilings::triad_a", n);
  const auto b = huge_page_view<double, Mem>("minigpu::ceilings::triad_b", n, kApart);
  const auto c = huge_page_view<double, Mem>("minigpu::ceilings::triad_c", n, 2 * kApart);
  kernels::fill_small_integers(b, 1);
  kernels::fill_small_integers(c, 2);
  // The best timing is the ceiling; their mean is printed beside it, the figure likwid-bench and
  // STREAM's averages report (scripts/dev/bench_peak.sh sets it against likwid-bench's): on this
  // project's Zen 5 VM the two were 2-17 % apart within one process (2026-12-01).
  const std::vector<double> s = run_seconds(
      [&] {
        for (std::int64_t i = 0; i < passes; ++i) kernels::triad(a, b, c, 3.0);
      },
      kRepetitions, 1, true);
  const double bytes_per_timing = 3.0 * 8 * static_cast<double>(n * passes);
  const double mean_s = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  return {name,
          label,
          bytes_per_timing / *std::min_element(s.begin(), s.end()) / 1e9,
          "GB/s",
          "a = b + s*c over 3 x " + io::human_bytes(static_cast<std::uint64_t>(array_bytes)) +
              " of doubles on " + Exec::name() + " (" + std::to_string(Exec().concurrency()) +
              " thread(s)), 24 bytes per element" +
              (kernels::streams_on_host(a, b, c) ? ", streaming stores" : "") +
              (std::is_same_v<typename Exec::memory_space, Kokkos::HostSpace>
                   ? ", on transparent huge pages where granted, 1 KiB apart in them"
                   : "") +
              (passes > 1 ? ", " + std::to_string(passes) + " passes per timing" : "") + ", best of " +
              std::to_string(kRepetitions) + " (mean " +
              io::formatted("%.1f", bytes_per_timing / mean_s / 1e9) + " GB/s)",
          3 * array_bytes};
}

// GFLOP/s of `values` FMA chains of `steps` steps each in `s` seconds (two flops a step), once
// their `sum` is checked against the fixed point every chain converges to.
double checked_fma_gflops(double sum, double values, std::int64_t steps, double s,
                          const std::string& kernel) {
  const double off = std::abs(sum / values - kernels::kFmaFixedPoint) / kernels::kFmaFixedPoint;
  if (!(off <= 1e-3))
    throw std::runtime_error(kernel + " ended " + io::significant(off, 2) +
                             " away from its fixed point: the compiler broke its chains");
  return values * 2.0 * static_cast<double>(steps) / s / 1e9;
}

// The FMA peak of T on Exec's threads: the recurrence long enough that a timing lasts tens of ms
// (2^22 steps: 12·16·2 flops each in AVX-512 float32, 0.8 GFLOP a thread), checked against its
// fixed point: a compiler that dropped or reordered the chains would not land there.
template <class Exec, class T>
Ceiling fma_ceiling(const std::string& name, const std::string& dtype) {
  constexpr std::int64_t kSteps = std::int64_t(1) << 22;
  const int threads = Exec().concurrency();
  double sum = 0;
  const double s = best_seconds([&] { sum = kernels::fma_peak_on_host<Exec, T>(kSteps); });
  const double lanes = kernels::fma_lanes<T>(), values = threads * kernels::kFmaChains * lanes;
  return {name, dtype + " FMA peak, " + io::counted(threads, "thread"),
          checked_fma_gflops(sum, values, kSteps, s, "the FMA peak kernel (" + dtype + ")"), "GFLOP/s",
          "x = a*x + b in " + std::to_string(kernels::kFmaChains) + " independent chains of " +
              std::to_string(kernels::fma_lanes<T>()) + " lanes (" + kHostVectorIsa +
              ") in registers, 2^22 steps, " + io::counted(threads, "thread") + ", best of " +
              std::to_string(kRepetitions) + " (likwid-bench's peakflops_*_fma)"};
}

// The GPU's FMA peak: 2^20 threads of 2^14 steps (2.7·10^11 flops, ~5 ms at 60 TFLOP/s), checked
// against the fixed point like the host's.
template <class T>
Ceiling gpu_fma_ceiling(const std::string& name, const std::string& dtype) {
  constexpr std::int64_t kThreads = std::int64_t(1) << 20, kSteps = std::int64_t(1) << 14;
  double sum = 0;
  const double s =
      best_seconds([&] { sum = kernels::fma_peak_on_device<GpuExecSpace, T>(kSteps, kThreads); });
  const double values = static_cast<double>(kThreads) * kernels::kFmaGpuChains;
  return {name, "GPU " + dtype + " FMA peak",
          checked_fma_gflops(sum, values, kSteps, s, "the GPU FMA peak kernel (" + dtype + ")"), "GFLOP/s",
          "x = a*x + b in " + std::to_string(kernels::kFmaGpuChains) +
              " independent chains per thread, 2^20 threads, 2^14 steps, best of " +
              std::to_string(kRepetitions)};
}

template <class Dst, class Src>
Ceiling copy_ceiling_of(const std::string& name, const std::string& label) {
  Kokkos::View<unsigned char*, Dst> dst("minigpu::ceilings::copy_dst", kGpuCopyBytes);
  Kokkos::View<unsigned char*, Src> src("minigpu::ceilings::copy_src", kGpuCopyBytes);
  const double s = best_seconds([&] { Kokkos::deep_copy(dst, src); });
  return {
      name, label, static_cast<double>(kGpuCopyBytes) / s / 1e9, "GB/s",
      "deep_copy of " + mib(kGpuCopyBytes) + ", bytes counted once, best of " + std::to_string(kRepetitions)};
}

// Copies between buffers on huge pages where the kernel grants them (huge_page_view): the rank-to-
// rank messages live on them, and on this project's VM a 64 MiB memcpy ran 10.4-11.0 GB/s between
// 4 KiB pages and 14.1-15.9 GB/s between 2 MiB ones (one sitting): measured on small pages, the
// transfer experiment's 64 MiB ping-pong read 106-113 % of this "ceiling".
using CopyBuffer = Kokkos::View<char*, Kokkos::HostSpace>;

Ceiling memcpy_ceiling(const std::string& name, int threads, const CopyBuffer& from, const CopyBuffer& to,
                       std::int64_t bytes) {
  const std::int64_t passes = passes_for(bytes);
  const double s = best_seconds([&] {
    for (std::int64_t i = 0; i < passes; ++i) {
      if (threads > 1) {
        kernels::host_parallel_memcpy(to.data(), from.data(), bytes);
      } else {
        std::memcpy(to.data(), from.data(), static_cast<std::size_t>(bytes));
      }
    }
  });
  const bool streaming = bytes == static_cast<std::int64_t>(from.extent(0));
  return {name,
          "host memcpy, " + io::counted(threads, "thread") +
              (streaming ? "" : ", " + io::human_bytes(static_cast<std::uint64_t>(bytes))),
          static_cast<double>(bytes * passes) / s / 1e9,
          "GB/s",
          "std::memcpy of " + io::human_bytes(static_cast<std::uint64_t>(bytes)) +
              (streaming ? " (4 x L3 within 64-256 MiB)"
                         : " (in cache), " + std::to_string(passes) + " passes per timing") +
              (threads > 1 ? " in " + std::to_string(threads) + " slices at once" : "") +
              ", on transparent huge pages where granted, " + io::counted(threads, "thread") +
              ", bytes counted once, best of " + std::to_string(kRepetitions),
          2 * bytes};
}

CeilingTable measure_all(const std::function<bool()>& stopped, const std::vector<std::string>& only);

}  // namespace

int ceiling_cores() {
  const int cores = physical_cores(affinity_cpus());
  return cores > 0 ? std::min(cores, HostExecSpace().concurrency()) : 0;
}

std::string ceiling_contradictions(const CeilingTable& t, int cores) {
  std::string out;
  for (const std::string name : {"host_fma_f32", "host_fma_f64"}) {
    const Ceiling *all = t.find(name), *one = t.find(name + "_1core");
    if (cores < 2 || !all || !one || all->value >= one->value * (1 + kMinCoreScaling * (cores - 1))) continue;
    out += (out.empty() ? "" : "; ") + name + " " + io::significant(all->value, 3) + " " + all->unit + " (" +
           all->label + ") is " + io::significant(all->value / one->value, 3) + "x one thread's on " +
           std::to_string(cores) + " cores: its threads shared a core";
  }
  for (const std::string name :
       {"host_memcpy", "host_triad", "host_fma_f32", "host_fma_f64", "host_sgemm", "host_dgemm"}) {
    const Ceiling *all = t.find(name), *one = t.find(name + "_1core");
    // Below by more than the noise of two measurements: on a core or two, a bandwidth that one
    // thread already saturates measures within a few % either way on two.
    if (!all || !one || all->value >= (1 - kContradictionMargin) * one->value) continue;
    out += (out.empty() ? "" : "; ") + name + " " + io::significant(all->value, 3) + " " + all->unit + " (" +
           all->label + ") below " + io::significant(one->value, 3) + " on one thread";
  }
  return out;
}

MeasuredCeilings measure_ceilings(const std::function<bool()>& stopped,
                                  const std::vector<std::string>& only) {
  const CpuSample before = sample_cpu();
  CeilingTable t = measure_all(stopped, only);
  if (stopped && stopped()) return {std::move(t), "", true};
  const CpuSample after = sample_cpu();
  const std::string contradictions = ceiling_contradictions(t, ceiling_cores());
  std::string doubt = contradictions;
  const auto load = load_between(before, after, after.own_s - before.own_s);
  if (load && load->loaded())
    doubt += (doubt.empty() ? "" : "; ") + load->describe() +
             " while they were measured (minigpu ceilings measures again)";
  t.doubt = doubt;
  return {std::move(t), contradictions};
}

namespace {

// Stops between figures once `stopped` says so (a Ctrl-C while a run measures them): each figure
// takes at most about a second, where the whole table takes several. With `only`, measures the
// figures it names and no other (a GEMM's three rows come together, and are kept as named).
CeilingTable measure_all(const std::function<bool()>& stopped, const std::vector<std::string>& only) {
  CeilingTable t;
  const auto stop = [&] { return stopped && stopped(); };
  const auto want = [&](const std::string& name) {
    return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
  };
  // The rank's threads: a node's figures where one rank has every core. With more than one
  // thread, each figure's one-core share is measured beside it (`_1core`): what a rank of one
  // thread, or a Serial build, would be bounded by.
  const int threads = HostExecSpace().concurrency();
  const bool per_core = threads > 1 && kHasOneThreadExecSpace;
  const std::int64_t bytes = host_stream_bytes();
  // The copies' buffers only where a copy is measured: `--only host_triad` starts its figure
  // without first touching 2 x 256 MiB (bench_peak.sh interleaves it with likwid-bench's passes).
  const bool copies = only.empty() || std::any_of(only.begin(), only.end(), [](const std::string& name) {
                        return name.rfind("host_memcpy", 0) == 0;
                      });
  const CopyBuffer from =
      huge_page_view<char, Kokkos::HostSpace>("ceilings::memcpy_from", copies ? bytes : 0);
  const CopyBuffer to = huge_page_view<char, Kokkos::HostSpace>("ceilings::memcpy_to", copies ? bytes : 0);
  if (copies) Kokkos::deep_copy(from, char(1));
  if (want("host_memcpy")) t.ceilings.push_back(memcpy_ceiling("host_memcpy", threads, from, to, bytes));
  if (per_core && want("host_memcpy_1core"))
    t.ceilings.push_back(memcpy_ceiling("host_memcpy_1core", 1, from, to, bytes));
  if (stop()) return t;
  if (want("host_triad")) {
    t.ceilings.push_back(
        triad_ceiling<HostExecSpace>("host_triad", "host triad, " + io::counted(threads, "thread"), bytes));
  }
  if (per_core && want("host_triad_1core")) {
    t.ceilings.push_back(
        triad_ceiling<OneThreadExecSpace>("host_triad_1core", "host triad, 1 thread", bytes));
  }
  for (const std::int64_t in_cache : kInCacheBytes) {
    if (stop()) return t;
    const std::string at = size_suffix(in_cache, bytes);
    if (want("host_memcpy" + at))
      t.ceilings.push_back(memcpy_ceiling("host_memcpy" + at, threads, from, to, in_cache));
    if (!want("host_triad" + at)) continue;
    t.ceilings.push_back(
        triad_ceiling<HostExecSpace>("host_triad" + at,
                                     "host triad, " + io::counted(threads, "thread") + ", " +
                                         io::human_bytes(static_cast<std::uint64_t>(in_cache)),
                                     in_cache, passes_for(3 * in_cache)));
  }
  if (stop()) return t;
  if (want("host_fma_f32"))
    t.ceilings.push_back(fma_ceiling<HostExecSpace, float>("host_fma_f32", "float32"));
  if (want("host_fma_f64"))
    t.ceilings.push_back(fma_ceiling<HostExecSpace, double>("host_fma_f64", "float64"));
  if (per_core && want("host_fma_f32_1core")) {
    t.ceilings.push_back(fma_ceiling<OneThreadExecSpace, float>("host_fma_f32_1core", "float32"));
  }
  if (per_core && want("host_fma_f64_1core")) {
    t.ceilings.push_back(fma_ceiling<OneThreadExecSpace, double>("host_fma_f64_1core", "float64"));
  }
  const auto gemm_wanted = [&](const std::string& kind) {
    return want("blas_" + kind) || want("native_" + kind) || want("host_" + kind);
  };
  for (const std::string kind : {"sgemm", "dgemm"}) {
    if (stop()) return t;
    if (gemm_wanted(kind)) add_host_gemm(t, kind, false);
  }
  // bfloat16 at the rank's threads only: oneDNN takes OpenMP's, which the one-core pass below
  // does not cap.
  if (host_sbgemm_measured() && gemm_wanted("sbgemm")) add_host_gemm(t, "sbgemm", false);
  if (per_core) {
    const int blas_threads = host_blas_info().threads;
    set_host_blas_threads(1);
    for (const std::string kind : {"sgemm", "dgemm"}) {
      if (!stop() && want("host_" + kind + "_1core")) add_host_gemm(t, kind, true);
    }
    set_host_blas_threads(blas_threads);
  }
  if (stop()) return t;
  if (num_gpus() > 0 && !gpus_are_emulated()) {
    if (want("gpu_d2d"))
      t.ceilings.push_back(copy_ceiling_of<GpuMemSpace, GpuMemSpace>("gpu_d2d", "GPU device-to-device copy"));
    if (want("gpu_h2d_pinned")) {
      t.ceilings.push_back(
          copy_ceiling_of<GpuMemSpace, PinnedHostMemSpace>("gpu_h2d_pinned", "pinned H2D copy"));
    }
    if (want("gpu_d2h_pinned")) {
      t.ceilings.push_back(
          copy_ceiling_of<PinnedHostMemSpace, GpuMemSpace>("gpu_d2h_pinned", "pinned D2H copy"));
    }
    if (want("gpu_triad"))
      t.ceilings.push_back(triad_ceiling<GpuExecSpace>("gpu_triad", "GPU triad", kGpuCopyBytes));
    if (want("gpu_fma_f32")) t.ceilings.push_back(gpu_fma_ceiling<float>("gpu_fma_f32", "float32"));
    if (want("gpu_fma_f64")) t.ceilings.push_back(gpu_fma_ceiling<double>("gpu_fma_f64", "float64"));
    if (kHasGpuVendorGemm && (want("gpu_sgemm") || want("gpu_dgemm"))) add_gpu_gemm(t);
  }
  // A GEMM's rows come in threes: keep the ones asked for.
  if (!only.empty())
    t.ceilings.erase(
        std::remove_if(t.ceilings.begin(), t.ceilings.end(), [&](const Ceiling& c) { return !want(c.name); }),
        t.ceilings.end());
  return t;
}

}  // namespace
}  // namespace minigpu
