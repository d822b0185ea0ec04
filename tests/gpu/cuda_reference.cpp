// The ceilings miniGPU's GPU figures are judged against, measured without Kokkos or miniGPU:
// cudaMemcpy between pageable or pinned host memory and the device, device to device, and
// cuBLAS SGEMM/DGEMM and its tensor-core GEMMs below float (cublasGemmEx: float32 through TF32,
// bfloat16 and float16 storage, all summed in float), each on the data miniGPU's matmul gives
// that precision (small integers in float32 and float64, [0, 1) below), and SGEMM/DGEMM again on
// values in [-1, 1) ("*_symmetric"); each timed with CUDA events (median of `reps` after a
// warm-up). Bytes are counted once per copy, as the transfer experiment counts them.
//   cuda_reference [BYTES] [GEMM_N...]   prints one JSON object
//   cuda_reference fma                   the CUDA cores' FMA peak in float32 and float64, written
//                                        apart from kernels/fma_peak.hpp, the best of six shapes,
//                                        with the SM clock each kernel ran at (clock64 cycles over
//                                        %globaltimer ns)
//   cuda_reference data N [ROUNDS]       the five GEMMs at N on each kind of data (Data below),
//                                        the kinds interleaved ROUNDS times (default 3): one JSON
//                                        object a line. A large product on an H200 is held to
//                                        its power limit, and the power it draws depends on the
//                                        bits it multiplies, so the data is part of the figure.
// Built only on CUDA builds; run by scripts/gpu/gpu_check.sh in the same session as minigpu.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cublasGetStatusString(s));
}

/// Median seconds of `reps` calls of f after one warm-up, timed with events on stream 0.
double median_seconds(const std::function<void()>& f, int reps) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  f();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    f();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    t.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// What the GEMMs multiply: values in [-1, 1) (the reference's own, never zeros, which can run
// faster than data); in [0, 1) (miniGPU's rounding precisions and torch.rand); the integers
// -2 ... 2 (miniGPU's float32 and float64 products, which verify exactly).
enum class Data { symmetric, unit, small_integers };
const char* name_of(Data d) {
  return d == Data::symmetric ? "symmetric" : d == Data::unit ? "unit" : "small_integers";
}

// A value of kind d from a hash of the index.
template <class T>
__global__ void fill(T* x, std::int64_t n, std::uint64_t seed, Data d) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  std::uint64_t z = seed + static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  const double u = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
  const double v = d == Data::symmetric ? 2 * u - 1 : d == Data::unit ? u : static_cast<double>(z % 5) - 2;
  if constexpr (sizeof(T) == 2) {
    x[i] = T(static_cast<float>(v));  // __half and __nv_bfloat16 convert from float
  } else {
    x[i] = static_cast<T>(v);
  }
}

/// TFLOP/s of gemm(h, m, a, b, c) on n×n matrices of T filled with random values.
template <class T, class Gemm>
double gemm_tflops(std::int64_t n, int reps, Data data, const Gemm& gemm) {
  T *a = nullptr, *b = nullptr, *c = nullptr;
  const std::int64_t elems = n * n;
  check(cudaMalloc(&a, elems * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&b, elems * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&c, elems * sizeof(T)), "cudaMalloc");
  const int threads = 256;
  const auto blocks = static_cast<unsigned>((elems + threads - 1) / threads);
  fill<<<blocks, threads>>>(a, elems, 1, data);
  fill<<<blocks, threads>>>(b, elems, 2, data);
  check(cudaGetLastError(), "fill");
  const double s = median_seconds([&] { gemm(static_cast<int>(n), a, b, c); }, reps);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 2.0 * static_cast<double>(n) * n * n / s / 1e12;
}

/// cuBLAS's own SGEMM or DGEMM (row-major C = A·B as column-major Cᵀ = Bᵀ·Aᵀ).
template <class T>
double gemm_tflops(cublasHandle_t h, std::int64_t n, int reps, Data data) {
  return gemm_tflops<T>(n, reps, data, [h](int m, const T* a, const T* b, T* c) {
    const T one = 1, zero = 0;
    if constexpr (sizeof(T) == 4) {
      check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, b, m, a, m, &zero, c, m), "sgemm");
    } else {
      check(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, b, m, a, m, &zero, c, m), "dgemm");
    }
  });
}

/// cublasGemmEx with storage `type` and a float compute type (float α and β).
template <class T>
double gemm_ex_tflops(cublasHandle_t h, std::int64_t n, int reps, cudaDataType type,
                      cublasComputeType_t compute, Data data) {
  return gemm_tflops<T>(n, reps, data, [=](int m, const T* a, const T* b, T* c) {
    const float one = 1, zero = 0;
    check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, b, type, m, a, type, m, &zero, c, type, m,
                       compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  });
}

// The FMA reference: `Chains` independent chains x <- a*x + b per thread, converging on 2, the
// step loop unrolled `Unroll` times; each block's first thread also records the SM cycles and the
// nanoseconds its block took, so that the report can tell a clock held low under load from a
// kernel that issues below the FMA pipes. Several shapes are timed and the best is the reference:
// on an SM that issues one warp instruction a cycle per partition, float32's FMAs take every
// issue slot, and the loop's own instructions and register-bank conflicts decide what is left.
__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
template <class T, int Chains, int Unroll>
__global__ void fma_chains(T* sums, std::int64_t steps, long long* cycles, unsigned long long* ns) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const long long c0 = clock64();
  const std::uint64_t g0 = global_ns();
  const T a = T(1.0 - 1.0 / 1024), b = T(2.0 / 1024), one = sums[t] + T(1);  // sums start at 0
  T x[Chains];
  for (int c = 0; c < Chains; ++c) x[c] = one * T(c % 8);
#pragma unroll Unroll
  for (std::int64_t s = 0; s < steps; ++s) {
#pragma unroll
    for (int c = 0; c < Chains; ++c) x[c] = fma(x[c], a, b);
  }
  T sum = 0;
  for (int c = 0; c < Chains; ++c) sum += x[c];
  sums[t] = sum;
  if (threadIdx.x == 0) {
    cycles[blockIdx.x] = clock64() - c0;
    ns[blockIdx.x] = global_ns() - g0;
  }
}

struct FmaResult {
  int chains, unroll;
  double tflops, sm_mhz;
};

/// T's FMA rate with Chains chains (median of `reps` launches) and the SM clock its blocks ran
/// at (cycles over ns, summed over every block of every launch); throws if the chains missed
/// their fixed point.
template <class T, int Chains, int Unroll>
FmaResult fma_peak(int reps) {
  constexpr int kBlock = 256, kBlocks = 4096;  // 2^20 threads: several waves on any SM count
  constexpr std::int64_t kThreads = std::int64_t(kBlock) * kBlocks, kSteps = (std::int64_t(1) << 19) / Chains;
  T* sums = nullptr;
  long long* cycles = nullptr;
  unsigned long long* ns = nullptr;
  check(cudaMalloc(&sums, kThreads * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&cycles, kBlocks * sizeof(long long)), "cudaMalloc");
  check(cudaMalloc(&ns, kBlocks * sizeof(unsigned long long)), "cudaMalloc");
  double total_cycles = 0, total_ns = 0;
  std::vector<long long> c(kBlocks);
  std::vector<unsigned long long> g(kBlocks);
  const double s = median_seconds(
      [&] {
        check(cudaMemset(sums, 0, kThreads * sizeof(T)), "cudaMemset");
        fma_chains<T, Chains, Unroll><<<kBlocks, kBlock>>>(sums, kSteps, cycles, ns);
        check(cudaGetLastError(), "fma_chains");
        check(cudaMemcpy(c.data(), cycles, sizeof(long long) * kBlocks, cudaMemcpyDeviceToHost), "cycles");
        check(cudaMemcpy(g.data(), ns, sizeof(unsigned long long) * kBlocks, cudaMemcpyDeviceToHost), "ns");
        for (int i = 0; i < kBlocks; ++i)
          total_cycles += static_cast<double>(c[i]), total_ns += static_cast<double>(g[i]);
      },
      reps);
  std::vector<T> x(kThreads);
  check(cudaMemcpy(x.data(), sums, kThreads * sizeof(T), cudaMemcpyDeviceToHost), "sums");
  for (const T v : x) {
    if (!(std::abs(static_cast<double>(v) / Chains - 2.0) < 1e-2))
      throw std::runtime_error("the FMA chains missed their fixed point: the compiler broke them");
  }
  cudaFree(sums);
  cudaFree(cycles);
  cudaFree(ns);
  // The copies of the clocks are inside the timing: a launch of ~20 ms dwarfs 32 KiB back.
  return {Chains, Unroll, 2.0 * Chains * static_cast<double>(kThreads) * kSteps / s / 1e12,
          total_cycles / total_ns * 1e3};
}

/// Every shape of T's chains, the best first.
template <class T>
std::vector<FmaResult> fma_shapes(int reps) {
  std::vector<FmaResult> r = {fma_peak<T, 4, 32>(reps), fma_peak<T, 8, 8>(reps),   fma_peak<T, 8, 32>(reps),
                              fma_peak<T, 16, 8>(reps), fma_peak<T, 16, 32>(reps), fma_peak<T, 32, 8>(reps)};
  std::stable_sort(r.begin(), r.end(),
                   [](const FmaResult& x, const FmaResult& y) { return x.tflops > y.tflops; });
  return r;
}

void print_fma(const char* dtype, const std::vector<FmaResult>& shapes) {
  const FmaResult& best = shapes.front();
  std::printf("\"%s\": {\"tflops\": %.3f, \"sm_mhz\": %.0f, \"chains\": %d, \"unroll\": %d, \"shapes\": [",
              dtype, best.tflops, best.sm_mhz, best.chains, best.unroll);
  for (std::size_t i = 0; i < shapes.size(); ++i)
    std::printf("%s{\"chains\": %d, \"unroll\": %d, \"tflops\": %.3f, \"sm_mhz\": %.0f}", i ? ", " : "",
                shapes[i].chains, shapes[i].unroll, shapes[i].tflops, shapes[i].sm_mhz);
  std::printf("]}");
}

/// The five GEMMs at n as JSON members, timed in this order: float32 and float64 on `wide`, TF32
/// and the 16-bit storages on `narrow`.
void print_gemms(cublasHandle_t h, std::int64_t n, int reps, Data wide, Data narrow) {
  std::printf("\"sgemm_tflops\": %.3f, ", gemm_tflops<float>(h, n, reps, wide));
  std::printf("\"dgemm_tflops\": %.3f, ", gemm_tflops<double>(h, n, reps, wide));
  std::printf("\"tf32_tflops\": %.3f, ",
              gemm_ex_tflops<float>(h, n, reps, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, narrow));
  std::printf("\"bf16_tflops\": %.3f, ",
              gemm_ex_tflops<__nv_bfloat16>(h, n, reps, CUDA_R_16BF, CUBLAS_COMPUTE_32F, narrow));
  std::printf("\"fp16_tflops\": %.3f",
              gemm_ex_tflops<__half>(h, n, reps, CUDA_R_16F, CUBLAS_COMPUTE_32F, narrow));
}

/// `cuda_reference data N ROUNDS`: the five GEMMs at N on each kind of data, interleaved.
void data_rounds(std::int64_t n, int rounds) {
  cublasHandle_t h = nullptr;
  check(cublasCreate(&h), "cublasCreate");
  for (int r = 0; r < rounds; ++r) {
    for (const Data d : {Data::symmetric, Data::unit, Data::small_integers}) {
      std::printf("{\"round\": %d, \"data\": \"%s\", \"n\": %lld, ", r, name_of(d),
                  static_cast<long long>(n));
      print_gemms(h, n, 10, d, d);
      std::printf("}\n");
      std::fflush(stdout);
    }
  }
  cublasDestroy(h);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 1 && std::string(argv[1]) == "fma") {
      cudaDeviceProp prop{};
      check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
      std::printf("{\"device\": \"%s\", \"sms\": %d, \"fma\": {", prop.name, prop.multiProcessorCount);
      print_fma("float32", fma_shapes<float>(10));
      std::printf(", ");
      print_fma("float64", fma_shapes<double>(10));
      std::printf("}}\n");
      return 0;
    }
    if (argc > 2 && std::string(argv[1]) == "data") {
      data_rounds(std::strtoll(argv[2], nullptr, 10), argc > 3 ? std::atoi(argv[3]) : 3);
      return 0;
    }
    const std::size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (std::size_t(1) << 28);
    std::vector<std::int64_t> sizes;
    for (int i = 2; i < argc; ++i) sizes.push_back(std::strtoll(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {4096};
    const int reps = 10;
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    int driver = 0;
    check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");

    void *dev = nullptr, *dev2 = nullptr, *pinned = nullptr;
    check(cudaMalloc(&dev, bytes), "cudaMalloc");
    check(cudaMalloc(&dev2, bytes), "cudaMalloc");
    check(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
    std::vector<unsigned char> pageable(bytes, 1);
    const auto gbps = [&](void* dst, const void* src, cudaMemcpyKind kind) {
      return static_cast<double>(bytes) /
             median_seconds([&] { check(cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy"); }, reps) / 1e9;
    };
    const double h2d_pageable = gbps(dev, pageable.data(), cudaMemcpyHostToDevice);
    const double h2d_pinned = gbps(dev, pinned, cudaMemcpyHostToDevice);
    const double d2h_pageable = gbps(pageable.data(), dev, cudaMemcpyDeviceToHost);
    const double d2h_pinned = gbps(pinned, dev, cudaMemcpyDeviceToHost);
    const double d2d = gbps(dev2, dev, cudaMemcpyDeviceToDevice);
    cudaFree(dev);
    cudaFree(dev2);
    cudaFreeHost(pinned);

    cublasHandle_t h = nullptr;
    check(cublasCreate(&h), "cublasCreate");
    int cublas_version = 0;
    check(cublasGetVersion(h, &cublas_version), "cublasGetVersion");
    std::printf(
        "{\"device\": \"%s\", \"compute_capability\": \"%d.%d\", \"cuda_driver\": %d, \"cublas\": %d,\n",
        prop.name, prop.major, prop.minor, driver, cublas_version);
    std::printf(" \"copy_bytes\": %zu, \"h2d_pageable_gbps\": %.2f, \"h2d_pinned_gbps\": %.2f,\n", bytes,
                h2d_pageable, h2d_pinned);
    std::printf(" \"d2h_pageable_gbps\": %.2f, \"d2h_pinned_gbps\": %.2f, \"d2d_gbps\": %.2f,\n",
                d2h_pageable, d2h_pinned, d2d);
    std::printf(" \"gemm\": [");
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::int64_t n = sizes[i];
      std::printf("%s{\"n\": %lld, ", i ? ", " : "", static_cast<long long>(n));
      print_gemms(h, n, reps, Data::small_integers, Data::unit);  // as miniGPU's matmul
      std::printf(", \"sgemm_symmetric_tflops\": %.3f, ", gemm_tflops<float>(h, n, reps, Data::symmetric));
      std::printf("\"dgemm_symmetric_tflops\": %.3f}", gemm_tflops<double>(h, n, reps, Data::symmetric));
    }
    std::printf("]}\n");
    cublasDestroy(h);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_reference: error: %s\n", e.what());
    return 1;
  }
}
