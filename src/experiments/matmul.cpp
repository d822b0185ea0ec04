// matmul: the chapter's exercise 1 — is a large matrix multiply faster on the GPU than on the
// CPU, and below what size does the CPU win? C = A·B for n×n matrices swept over `sizes`, on
// cpu and try_gpu(), in float and double, with kernel `variants`:
//   reference  one thread per C(i,j): for p: C(i,j) += A(i,p)·B(p,j)
//   tiled      Tile×Tile blocks of A and B staged in team scratch (shared memory)
//   vendor     KokkosKernels gemm, where the build has it
// Sizes above `cpu_max_size` run on the GPU only; the crossover uses sizes run on both.
// Accounting per repetition: flops = 2n³; bytes = 3n²·sizeof(T), the compulsory traffic (read
// A and B once, write C once) — real kernels move more, so GB/s is a lower bound.
// Inputs are small integers, so C is exact in either dtype: n <= 256 is compared exactly with a
// host triple loop, larger n with the identity C·v = A·(B·v).
#include "config/common_keys.hpp"
#include "core/backend.hpp"
#include "core/tensor.hpp"
#include "experiments/registry.hpp"
#include "io/format.hpp"
#include "kernels/fill_integers.hpp"
#include "kernels/matmul_check.hpp"
#include "kernels/matmul_reference.hpp"
#include "kernels/matmul_tiled.hpp"
#include "kernels/matmul_vendor.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace minigpu {
namespace {

enum class Variant { reference, tiled, vendor };
constexpr std::int64_t kExactCheckMaxN = 256;
constexpr std::int64_t kMaxN = 200000;

/// A vendor GEMM exists for the memory of `d` in this build.
bool has_vendor(Device d) {
  return uses_host_memory(d) ? kernels::has_vendor_gemm<HostMemSpace>() : kernels::has_vendor_gemm<GpuMemSpace>();
}

Variant parse_variant(const std::string& s) {
  return s == "tiled" ? Variant::tiled : s == "vendor" ? Variant::vendor : Variant::reference;
}

template <class T>
struct MatmulState {
  Tensor<T> a, b, c;
  std::int64_t n = 0;

  void setup(Device d, std::int64_t size) {
    n = size;
    a = Tensor<T>({n, n}, d, "matmul::A");
    b = Tensor<T>({n, n}, d, "matmul::B");
    c = Tensor<T>({n, n}, d, "matmul::C");
    with_views(
        d,
        [](const auto& x, const auto& y) {
          kernels::fill_small_integers(x, 1);
          kernels::fill_small_integers(y, 2);
        },
        a, b);
  }

  void run(Variant variant) {
    const std::int64_t s = n;
    with_views(
        c.device(),
        [&](const auto& cv, const auto& av, const auto& bv) {
          if (variant == Variant::tiled) {
            kernels::matmul_tiled(cv, av, bv, s, s, s);
          } else if (variant == Variant::vendor) {
            kernels::matmul_vendor(cv, av, bv, s, s, s);
          } else {
            kernels::matmul_reference(cv, av, bv, s, s, s);
          }
        },
        c, a, b);
  }

  Check verify() const {
    const std::int64_t s = n;
    return with_views(
        c.device(),
        [&](const auto& cv, const auto& av, const auto& bv) -> Check {
          if (s <= kExactCheckMaxN) {
            const std::int64_t wrong = kernels::matmul_mismatches_host(cv, av, bv, s, s, s);
            if (wrong == 0) return {true, "exact match with host triple loop"};
            return {false, std::to_string(wrong) + " of " + std::to_string(s * s) +
                               " entries differ from host triple loop"};
          }
          const double err = kernels::matmul_identity_error(cv, av, bv, s, s, s);
          const double tol = kernels::matmul_identity_tolerance<T>(s);
          return {err <= tol, "|Cv-A(Bv)|/|A(Bv)| = " + io::significant(err, 2) +
                                  (err <= tol ? " <= " : " > ") + io::significant(tol, 2)};
        },
        c, a, b);
  }

  void clear() { a = b = c = Tensor<T>(); }
};

}  // namespace

class MatmulExperiment : public Experiment {
 public:
  void configure(ConfigNode& node, const RunContext& ctx) override {
    sizes_.clear();
    for (std::int64_t n : node.get_list<std::int64_t>("sizes", {16, 32, 64, 128, 256, 512, 1024})) {
      if (n < 1 || n > kMaxN) {
        node.fail("sizes", "every size must be between 1 and " + std::to_string(kMaxN) + " (got " +
                               std::to_string(n) + ")");
      }
      if (std::find(sizes_.begin(), sizes_.end(), n) == sizes_.end()) sizes_.push_back(n);
    }
    // A serial host kernel would take hours at the chapter's n = 10000: larger sizes run on the GPU only.
    cpu_max_size_ = node.get_int("cpu_max_size", 4096, 1);
    dtypes_ = read_dtypes(node, ctx.default_dtype);
    devices_.clear();
    for (const auto& s : read_choices(node, "devices", {"cpu", "gpu"}, {"cpu", "gpu"})) {
      const Device d = s == "gpu" ? try_gpu() : cpu();
      if (std::find(devices_.begin(), devices_.end(), d) == devices_.end()) devices_.push_back(d);
    }
    const bool any_gpu = std::any_of(devices_.begin(), devices_.end(), [](Device d) { return d.is_gpu(); });
    if (!any_gpu && *std::min_element(sizes_.begin(), sizes_.end()) > cpu_max_size_) {
      node.fail("sizes", "every size is above cpu_max_size (" + std::to_string(cpu_max_size_) +
                             ") and there is no GPU to run them on");
    }
    variants_ = read_choices(node, "variants", {"reference", "tiled", "vendor"}, {"reference", "tiled"});
    const bool want_vendor = std::find(variants_.begin(), variants_.end(), "vendor") != variants_.end();
    if (want_vendor && std::none_of(devices_.begin(), devices_.end(), has_vendor)) {
      node.fail("variants", "'vendor' has no GEMM for " + describe(devices_.front()) +
                                " in this build (cuBLAS serves GPU memory on CUDA builds; a host BLAS "
                                "needs a KokkosKernels built against this Kokkos)");
    }
  }

  std::vector<CaseSpec> cases() const override {
    std::vector<CaseSpec> out;
    for (DType dt : dtypes_) {
      const std::uint64_t elem = dt == DType::f32 ? sizeof(float) : sizeof(double);
      for (const auto& v : variants_) {
        for (std::int64_t n : sizes_) {
          for (Device d : devices_) {
            if (d.is_cpu() && n > cpu_max_size_) continue;
            if (v == "vendor" && !has_vendor(d)) continue;
            CaseSpec c;
            c.label = v + " n=" + std::to_string(n);
            c.params = {{"n", std::to_string(n)}, {"variant", v}};
            c.device = d;
            c.dtype = dt;
            // A, B, C, plus the identity check's four double vectors.
            c.device_bytes =
                3 * static_cast<std::uint64_t>(n * n) * elem + 4 * static_cast<std::uint64_t>(n) * 8;
            out.push_back(c);
          }
        }
      }
    }
    return out;
  }

  void setup(const CaseSpec& spec) override {
    dtype_ = spec.dtype;
    variant_ = parse_variant(spec.param("variant"));
    n_ = std::stoll(spec.param("n"));
    if (dtype_ == DType::f32)
      f32_.setup(spec.device, n_);
    else
      f64_.setup(spec.device, n_);
  }

  void run_once() override {
    if (dtype_ == DType::f32)
      f32_.run(variant_);
    else
      f64_.run(variant_);
  }

  Check verify() override { return dtype_ == DType::f32 ? f32_.verify() : f64_.verify(); }

  Work work() const override {
    const double n = static_cast<double>(n_);
    const double elem = dtype_ == DType::f32 ? sizeof(float) : sizeof(double);
    return {3 * n * n * elem, 2 * n * n * n};
  }

  void teardown() override {
    f32_.clear();
    f64_.clear();
  }

  std::vector<Finding> summarize(const std::vector<CaseResult>& results) const override;

 private:
  std::vector<std::int64_t> sizes_;
  std::int64_t cpu_max_size_ = 4096;
  std::vector<DType> dtypes_;
  std::vector<Device> devices_;
  std::vector<std::string> variants_;
  DType dtype_ = DType::f32;
  Variant variant_ = Variant::reference;
  std::int64_t n_ = 0;
  MatmulState<float> f32_;
  MatmulState<double> f64_;
};

std::vector<Finding> MatmulExperiment::summarize(const std::vector<CaseResult>& results) const {
  std::vector<Finding> out;
  // Best GFLOP/s of each kind of device and dtype, over variants and sizes.
  std::map<std::string, const CaseResult*> best;
  for (const auto& r : results) {
    const std::string key = std::string(r.spec.device.is_gpu() ? "gpu_" : "cpu_") + to_string(r.spec.dtype);
    if (!best[key] || r.gflops > best[key]->gflops) best[key] = &r;
  }
  for (const auto& [key, r] : best) {
    out.push_back(
        {"", "peak_gflops_" + key, r->gflops, "GFLOP/s", r->spec.label + " on " + describe(r->spec.device)});
  }

  const bool has_gpu = std::any_of(devices_.begin(), devices_.end(), [](Device d) { return d.is_gpu(); });
  const std::string same_host = gpus_are_emulated() || !kHasGpuBackend
                                    ? "; cpu and gpu are the same physical host here (emulated GPU), so this "
                                      "reflects noise, not hardware"
                                    : "";
  for (DType dt : dtypes_) {
    for (const auto& v : variants_) {
      const std::string name = "crossover_n_" + v + "_" + to_string(dt);
      if (!has_gpu) {
        out.push_back(
            {"", name, 0, "n", "no GPU: try_gpu() is cpu, so only cpu cases ran and nothing to cross"});
        continue;
      }
      std::map<std::int64_t, std::pair<double, double>> seconds;  // n -> (cpu, gpu), median
      for (const auto& r : results) {
        if (r.spec.dtype != dt || r.spec.param("variant") != v) continue;
        auto& slot = seconds[std::stoll(r.spec.param("n"))];
        (r.spec.device.is_gpu() ? slot.second : slot.first) = r.seconds.median;
      }
      std::vector<std::int64_t> sizes;
      std::vector<bool> gpu_wins;
      for (const auto& [n, t] : seconds) {
        if (t.first > 0 && t.second > 0) {
          sizes.push_back(n);
          gpu_wins.push_back(t.second < t.first);
        }
      }
      if (sizes.empty()) continue;
      // The smallest size from which the gpu wins at every larger size measured.
      std::size_t first = sizes.size();
      while (first > 0 && gpu_wins[first - 1]) --first;
      Finding f{"", name, 0, "n", ""};
      if (first == sizes.size()) {
        f.value = static_cast<double>(sizes.back());
        f.note = "cpu still faster at the largest size n=" + std::to_string(sizes.back()) +
                 "; crossover lies above it";
      } else if (first == 0) {
        f.value = static_cast<double>(sizes.front());
        f.note = "gpu faster at every size measured, from n=" + std::to_string(sizes.front());
      } else {
        f.value = static_cast<double>(sizes[first]);
        f.note = "cpu faster at n=" + std::to_string(sizes[first - 1]) +
                 ", gpu faster from n=" + std::to_string(sizes[first]) + " up";
      }
      f.note += same_host;
      out.push_back(f);
    }
  }
  return out;
}

MINIGPU_REGISTER_EXPERIMENT(MatmulExperiment, "matmul",
                            "CPU vs GPU matrix multiply over a size sweep: GFLOP/s and the crossover size");

}  // namespace minigpu
