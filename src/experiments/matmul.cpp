// matmul: the chapter's exercise 1 — is a large matrix multiply faster on the GPU than on the
// CPU, and below what size does the CPU win? C = A·B for n×n matrices swept over `sizes`, on
// cpu and try_gpu(), in each of `dtypes`, with kernel `variants` (default: vendor, tiled):
//   vendor     the vendor GEMM a user would call: CBLAS (OpenBLAS) on the host, cuBLAS on GPU
//              memory (cublasGemmEx below float) — the fair CPU side of the comparison
//   vendor_tf32  float32 through cuBLAS's TF32 tensor cores (GPU memory only)
//   tiled      miniGPU's native kernel: packed, cache-blocked, register-tiled at the build's
//              vector width on the host (kernels/gemm_host.hpp); shared-memory blocks with a
//              register tile per thread on a GPU (kernels/gemm_gpu.hpp); 16-bit storage through
//              float (kernels/matmul_widened.hpp: vdpbf16ps or AMX tiles where the host has them)
//   reference  one thread per C(i,j): for p: C(i,j) += A(i,p)·B(p,j) — the naive baseline
// Sizes above `cpu_max_size` run on the GPU only; the crossover uses sizes run on both.
// Accounting per repetition: flops = 2n³; bytes = 3n²·sizeof(T), the compulsory traffic (read
// A and B once, write C once) — real kernels move more, so GB/s is a lower bound.
// float and double take small integers, so C is exact: n <= 256 is compared exactly with a host
// triple loop, larger n with C·v = A·(B·v). bfloat16, float16 and TF32 take inputs uniform in
// [0, 1] (integers would hide their rounding), checked against their precision's own bound; so
// do float and double with `data: uniform`, since a GPU at its power cap runs small integers
// faster than measured data (docs/gpus.md: cuBLAS DGEMM 14-15 % at n = 10000 on an H200).
#include "ceilings/ceilings.hpp"
#include "config/common_keys.hpp"
#include "core/low_precision.hpp"
#include "engine/case_grid.hpp"
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"
#include "kernels/gemm.hpp"
#include "kernels/matmul_check.hpp"
#include "kernels/matmul_reference.hpp"
#include "kernels/matmul_widened.hpp"

#include <algorithm>

namespace minigpu {
namespace {

enum class Variant { reference, tiled, vendor, vendor_tf32 };
constexpr std::int64_t kExactCheckMaxN = 256;
constexpr std::int64_t kMaxN = 200000;

const Names<Variant> kVariants = {{"reference", Variant::reference},
                                  {"tiled", Variant::tiled},
                                  {"vendor", Variant::vendor},
                                  {"vendor_tf32", Variant::vendor_tf32}};

struct MatmulCase {
  Variant variant = Variant::reference;
  std::int64_t n = 0;
  bool uniform = false;  // `data: uniform` (float and double; the rounding precisions always are)
};

template <class Mem, class T>
class MatmulState : public CaseState {
 public:
  using View = Kokkos::View<T*, Mem>;
  static constexpr bool k16Bit = sizeof(T) == 2;  // bfloat16, float16 (see the top comment)

  explicit MatmulState(const MatmulCase& c)
      : case_(c),
        rounds_(k16Bit || c.variant == Variant::vendor_tf32),
        uniform_(rounds_ || c.uniform),
        a_(kernels::product_operand<T, Mem>("minigpu::matmul::A", c.n)),
        b_(kernels::product_operand<T, Mem>("minigpu::matmul::B", c.n)),
        c_(kernels::product_operand<T, Mem>("minigpu::matmul::C", c.n)),
        product_(c.variant == Variant::tiled ? GemmKernel::native : GemmKernel::vendor, c.n) {
    kernels::fill_product_inputs(a_, b_, uniform_);
  }

  void run() override {
    const std::int64_t n = case_.n;
    if (case_.variant == Variant::vendor_tf32) return kernels::matmul_vendor_mixed(c_, a_, b_, n, true);
    if (case_.variant == Variant::reference) return kernels::matmul_reference(c_, a_, b_, n, n, n);
    product_(c_, a_, b_);  // tiled (native) or vendor, in any storage type
  }

  Check verify() override {
    const std::int64_t n = case_.n;
    if constexpr (!k16Bit) {
      if (!uniform_ && n <= kExactCheckMaxN)
        return exact_match_check(kernels::matmul_mismatches_host(c_, a_, b_, n, n, n), "host triple loop",
                                 n * n);
      if (!uniform_)
        return tolerance_check("|Cv-A(Bv)|/|A(Bv)| = ", kernels::matmul_identity_error(c_, a_, b_, n, n, n),
                               kernels::matmul_identity_tolerance<T>(n));
    }
    const kernels::ProductError e = kernels::sampled_rows_errors(c_, a_, b_, n);
    Check check = tolerance_check("max|C-AB|/(1+|AB|) on 8 rows in double = ", e.check,
                                  kernels::uniform_product_bound<T>(n, rounds_));
    check.error = e.error;
    return check;
  }

 private:
  MatmulCase case_;
  bool rounds_;   // products below the storage's precision: uniform inputs, checked to a bound
  bool uniform_;  // inputs uniform in [0, 1]: the rounding precisions, or `data: uniform`
  View a_, b_, c_;
  kernels::AnyMatmul<Mem, T> product_;
};

class MatmulExperiment : public CaseList<MatmulCase>, public Analysis {
 public:
  void setup(const CaseSpec& spec) override { setup_state<MatmulState, true>(spec); }
  void configure(ConfigNode& node, const RunContext& ctx) override {
    const auto sizes = read_sizes(node, "sizes", {16, 32, 64, 128, 256, 512, 1024}, 1, kMaxN);
    // A serial host kernel would take hours at the chapter's n = 10000: larger sizes run on the GPU only.
    const std::int64_t cpu_max_size = node.get_int("cpu_max_size", 4096, 1);
    const std::vector<DType> dtypes = read_dtypes(node, ctx.default_dtype, "dtypes", Precisions::low_too);
    const std::vector<Device> devices = read_devices(node);
    has_gpu_ = std::any_of(devices.begin(), devices.end(), [](Device d) { return d.is_gpu(); });
    for (std::int64_t n : sizes)  // a size no device runs is refused, never dropped
      if (!has_gpu_ && n > cpu_max_size)
        node.fail("sizes", std::to_string(n) + " is above cpu_max_size " + std::to_string(cpu_max_size) +
                               ": no device runs it");
    const auto variants = node.get_named_list("variants", kVariants, {"vendor", "tiled"});
    const bool uniform_data =
        node.get_choice("data", {"small_integers", "uniform"}, "small_integers") == "uniform";
    const auto listed = [&](Variant v) { return std::count(variants.begin(), variants.end(), v) > 0; };
    const std::string why =
        kernels::vendor_refusal(dtypes, devices, listed(Variant::vendor), listed(Variant::vendor_tf32));
    if (!why.empty()) node.fail("variants", why);
    for_each_combination(
        [&](DType dtype, Variant v, std::int64_t n, Device d) {
          const bool tf32 = v == Variant::vendor_tf32;
          if ((d.is_cpu() && n > cpu_max_size) ||
              ((v == Variant::vendor || tf32) && !kernels::vendor_serves(d, dtype, tf32)))
            return;
          // TF32 has no ceiling of its own yet: float32's would be exceeded by design.
          const bool uniform =
              uniform_data && !tf32 && !is_low_precision(dtype);  // named where not the default
          CaseSpec spec =
              case_spec(name_of(kVariants, v) + " n=" + std::to_string(n) + (uniform ? " uniform" : ""),
                        {{"n", n}, {"variant", name_of(kVariants, v)}}, d, dtype,
                        tf32 ? "" : gemm_ceiling(d, dtype), "sizes");
          if (uniform) spec.params.emplace_back("data", "uniform");
          if (v == Variant::vendor) spec.peak = gemm_peak(d, dtype, GemmKernel::vendor);
          const std::uint64_t matrix_bytes = static_cast<std::uint64_t>(n * n) * size_of(dtype);
          spec.work = {3.0 * static_cast<double>(matrix_bytes), gemm_flops(n, n, n)};
          spec.flops_estimate = spec.work.flops;
          // A, B, C, the identity check's four double vectors, and a 16-bit tiled product's float copies.
          spec.device_bytes = 3 * matrix_bytes + 4 * static_cast<std::uint64_t>(n) * 8 +
                              (is_low_precision(dtype) && v == Variant::tiled
                                   ? kernels::widened_matmul_bytes(dtype, uses_host_memory(d), n)
                                   : 0);
          add_case(spec, {v, n, uniform});
        },
        dtypes, variants, sizes, devices);
  }
  std::vector<Finding> findings(const std::vector<CaseResult>& results) const override;

 private:
  bool has_gpu_ = false;
};

std::vector<Finding> MatmulExperiment::findings(const std::vector<CaseResult>& results) const {
  std::vector<Finding> out = precision_speedup_findings(results);  // what 16-bit and TF32 buy, per n
  // Best GFLOP/s of each kind of device and dtype, over variants and sizes, in key order.
  const auto best = best_rows(
      results,
      [&](const CaseResult& r) {
        const bool tf32 = case_of(r.spec).variant == Variant::vendor_tf32;  // a precision of its own
        return std::string(r.spec.device.is_gpu() ? "gpu_" : "cpu_") +
               (tf32 ? "tf32" : to_string(r.spec.dtype));
      },
      &CaseResult::gflops);
  // Exercise 1 compares a GPU with "the CPU": say how much of it that was.
  for (const auto& [key, r] : best) {
    out.push_back(row_finding("peak_gflops_" + key, r->gflops, "GFLOP/s", *r,
                              r->spec.label + " on " + describe(r->spec.device) +
                                  (r->spec.device.is_gpu() ? "" : cpu_threads_note()),
                              true));
  }
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
    if (!x.sizes.empty()) out.push_back(cpu_gpu_crossover_finding(name, x));
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
      {"crossover_n_<variant>_<dtype>", "n", "smallest n from which the GPU is faster with that variant"},
      {"speedup_<precision>_over_float32_<variant>_<device>_n<n>", "x", "float32's time / its time"}},
     "sizes: [8], devices: [cpu], variants: [reference, tiled, vendor], dtypes: [float32]"});

}  // namespace minigpu
