// matmul: the chapter's exercise 1 — is a large matrix multiply faster on the GPU than on the
// CPU, and below what size does the CPU win? C = A·B for n×n matrices swept over `sizes`, on
// cpu and try_gpu(), in float and double, with kernel `variants` (default: vendor, tiled):
//   vendor     the vendor GEMM a user would call: CBLAS (OpenBLAS) on the host, cuBLAS on GPU
//              memory — the fair CPU side of the comparison
//   tiled      miniGPU's native kernel: packed, cache-blocked, register-tiled at the build's
//              vector width on the host (kernels/gemm_host.hpp); shared-memory blocks with a
//              register tile per thread on a GPU (kernels/gemm_gpu.hpp)
//   reference  one thread per C(i,j): for p: C(i,j) += A(i,p)·B(p,j) — the naive baseline
// Sizes above `cpu_max_size` run on the GPU only; the crossover uses sizes run on both.
// Accounting per repetition: flops = 2n³; bytes = 3n²·sizeof(T), the compulsory traffic (read
// A and B once, write C once) — real kernels move more, so GB/s is a lower bound.
// Inputs are small integers, so C is exact in either dtype: n <= 256 is compared exactly with a
// host triple loop, larger n with the identity C·v = A·(B·v).
// bfloat16, float16 (host memory, no vendor GEMM yet): 16-bit storage, float sums (`tiled`:
// kernels/matmul_widened.hpp); inputs uniform in [0, 1), as integers hide 16-bit sums.
#include "ceilings/ceilings.hpp"
#include "config/common_keys.hpp"
#include "core/backend.hpp"
#include "core/low_precision.hpp"
#include "engine/case_grid.hpp"
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"
#include "kernels/fill_integers.hpp"
#include "kernels/gemm.hpp"
#include "kernels/matmul_check.hpp"
#include "kernels/matmul_reference.hpp"
#include "kernels/matmul_widened.hpp"

#include <algorithm>
#include <map>

namespace minigpu {
namespace {

enum class Variant { reference, tiled, vendor };
constexpr std::int64_t kExactCheckMaxN = 256;
constexpr std::int64_t kMaxN = 200000;

const Names<Variant> kVariants = {
    {"reference", Variant::reference}, {"tiled", Variant::tiled}, {"vendor", Variant::vendor}};

struct MatmulCase {
  Variant variant = Variant::reference;
  std::int64_t n = 0;
};

template <class Mem, class T>
class MatmulState : public CaseState {
 public:
  using View = Kokkos::View<T*, Mem>;
  static constexpr bool k16Bit = sizeof(T) == 2;  // bfloat16, float16 (see the top comment)

  explicit MatmulState(const MatmulCase& c)
      : case_(c),
        a_("minigpu::matmul::A", c.n * c.n),
        b_("minigpu::matmul::B", c.n * c.n),
        c_("minigpu::matmul::C", c.n * c.n) {
    if constexpr (k16Bit) {
      kernels::fill_uniform(a_, 1, 0.0f, 1.0f);
      kernels::fill_uniform(b_, 2, 0.0f, 1.0f);
      if (c.variant == Variant::tiled) widened_ = kernels::WidenedMatmul<Mem>(c.n);
    } else {
      kernels::fill_small_integers(a_, 1);
      kernels::fill_small_integers(b_, 2);
    }
  }

  void run() override {
    const std::int64_t n = case_.n;
    if constexpr (k16Bit) {
      if (case_.variant == Variant::tiled) return widened_(c_, a_, b_, n);
    } else {
      if (case_.variant == Variant::tiled) return kernels::matmul(GemmKernel::native, c_, a_, b_, n, n, n);
      if (case_.variant == Variant::vendor) return kernels::matmul(GemmKernel::vendor, c_, a_, b_, n, n, n);
    }
    kernels::matmul_reference(c_, a_, b_, n, n, n);
  }

  Check verify() override {
    const std::int64_t n = case_.n;
    if constexpr (k16Bit) {
      return tolerance_check(
          "max|C-AB|/(1+|AB|) on 8 rows in double = ", kernels::sampled_rows_error(c_, a_, b_, n),
          kernels::low_precision_product_bound(dtype_of<T>::value, n));
    } else if (n <= kExactCheckMaxN) {
      return exact_match_check(kernels::matmul_mismatches_host(c_, a_, b_, n, n, n), "host triple loop",
                               n * n);
    }
    return tolerance_check("|Cv-A(Bv)|/|A(Bv)| = ", kernels::matmul_identity_error(c_, a_, b_, n, n, n),
                           kernels::matmul_identity_tolerance<T>(n));
  }

 private:
  MatmulCase case_;
  View a_, b_, c_;
  kernels::WidenedMatmul<Mem> widened_;
};

class MatmulExperiment : public CaseList<MatmulCase> {
 public:
  void setup(const CaseSpec& spec) override { setup_state<MatmulState, true>(spec); }
  void configure(ConfigNode& node, const RunContext& ctx) override {
    const auto sizes = read_sizes(node, "sizes", {16, 32, 64, 128, 256, 512, 1024}, 1, kMaxN);
    // A serial host kernel would take hours at the chapter's n = 10000: larger sizes run on the GPU only.
    const std::int64_t cpu_max_size = node.get_int("cpu_max_size", 4096, 1);
    const std::vector<DType> dtypes = read_dtypes(node, ctx.default_dtype, "dtypes", Precisions::low_too);
    const std::vector<Device> devices = read_devices(node);
    has_gpu_ = std::any_of(devices.begin(), devices.end(), [](Device d) { return d.is_gpu(); });
    for (std::int64_t n : sizes) {  // a size no device runs is refused, never dropped
      if (!has_gpu_ && n > cpu_max_size)
        node.fail("sizes", std::to_string(n) + " is above cpu_max_size " + std::to_string(cpu_max_size) +
                               ": no device runs it");
    }
    const auto variants = node.get_named_list("variants", kVariants, {"vendor", "tiled"});
    if (std::count(variants.begin(), variants.end(), Variant::vendor) &&
        std::none_of(devices.begin(), devices.end(), [](Device d) { return kernels::has_vendor_gemm(d); })) {
      node.fail("variants", kernels::vendor_gemm_refusal(devices.front(), "tiled"));
    }
    // A 16-bit product some device or variant cannot run is refused, never skipped.
    if (refuse_16bit_off_host(node, dtypes, devices) &&
        std::count(variants.begin(), variants.end(), Variant::vendor))
      node.fail("variants",
                "vendor has no 16-bit GEMM in this build (none is linked yet): list [tiled, reference]");
    for_each_combination(
        [&](DType dtype, Variant v, std::int64_t n, Device d) {
          if ((d.is_cpu() && n > cpu_max_size) || (v == Variant::vendor && !kernels::has_vendor_gemm(d)))
            return;
          CaseSpec spec = case_spec(name_of(kVariants, v) + " n=" + std::to_string(n),
                                    {{"n", n}, {"variant", name_of(kVariants, v)}}, d, dtype,
                                    gemm_ceiling(d, dtype), "sizes");
          const std::uint64_t matrix_bytes = static_cast<std::uint64_t>(n * n) * size_of(dtype);
          spec.work = {3.0 * static_cast<double>(matrix_bytes), gemm_flops(n, n, n)};
          spec.flops_estimate = spec.work.flops;
          // A, B, C, the identity check's four double vectors, and a 16-bit tiled product's float copies.
          spec.device_bytes = 3 * matrix_bytes + 4 * static_cast<std::uint64_t>(n) * 8 +
                              (is_low_precision(dtype) && v == Variant::tiled ? 6 * matrix_bytes : 0);
          add_case(spec, {v, n});
        },
        dtypes, variants, sizes, devices);
  }

  std::vector<Finding> findings(const std::vector<CaseResult>& results) const override;

 private:
  bool has_gpu_ = false;
};

std::vector<Finding> MatmulExperiment::findings(const std::vector<CaseResult>& results) const {
  std::vector<Finding> out;
  // Best GFLOP/s of each kind of device and dtype, over variants and sizes, in key order.
  const auto best = best_rows(
      results,
      [](const CaseResult& r) {
        return std::string(r.spec.device.is_gpu() ? "gpu_" : "cpu_") + to_string(r.spec.dtype);
      },
      &CaseResult::gflops);
  // Exercise 1 compares a GPU with "the CPU": say how much of it that was.
  const int threads = HostExecSpace().concurrency();
  const std::string cpu_is =
      "; cpu = " + std::to_string(threads) + " host thread" + (threads == 1 ? "" : "s") + " of this rank";
  for (const auto& [key, r] : best) {
    out.push_back(row_finding(
        "peak_gflops_" + key, r->gflops, "GFLOP/s", *r,
        r->spec.label + " on " + describe(r->spec.device) + (r->spec.device.is_gpu() ? "" : cpu_is), true));
  }
  const std::string same_host = gpus_are_emulated() || !kHasGpuBackend
                                    ? "; cpu and gpu are the same physical host here (emulated GPU), so this "
                                      "reflects noise, not hardware"
                                    : "";
  const auto by_dtype_and_variant = group_rows(
      results, [&](const CaseResult& r) { return std::pair(r.spec.dtype, case_of(r.spec).variant); });
  for (const auto& [key, rows] : by_dtype_and_variant) {
    const std::string name = "crossover_n_" + name_of(kVariants, key.second) + "_" + to_string(key.first);
    if (!has_gpu_) {
      out.push_back({"", name, std::nullopt, "n",
                     "no GPU: try_gpu() is cpu, so only cpu cases ran and there is nothing to cross"});
      continue;
    }
    // The smallest size from which the gpu wins at every larger size measured.
    const Crossover x = find_crossover(
        rows, [&](const CaseResult& r) { return case_of(r.spec).n; },
        [](const CaseResult& r) { return r.spec.device.is_gpu(); });
    if (x.sizes.empty()) continue;
    Finding f = crossover_finding(name, x, "cpu", "gpu");
    f.note += cpu_is + same_host;
    if (!same_host.empty()) f.mark_unreliable("cpu and gpu are the same host (emulated GPU)");
    out.push_back(f);
  }
  return out;
}

}  // namespace

MINIGPU_REGISTER_EXPERIMENT(
    MatmulExperiment,
    {"matmul",
     "CPU vs GPU matrix multiply over a size sweep: GFLOP/s and the crossover size",
     "exercise 1: when is the GPU faster?",
     "matmul_gflops.png",
     {{"peak_gflops_<device>_<dtype>", "GFLOP/s", "best rate over the sizes on the cpu or the gpu"},
      {"crossover_n_<variant>_<dtype>", "n", "smallest n from which the GPU is faster with that variant"}}});

}  // namespace minigpu
