// Which precisions the vendor GEMM serves on which device, for inputs: CBLAS and cuBLAS in
// float32 and float64 (matmul_vendor.hpp); below float cuBLAS on GPU memory (16-bit storage, and
// float32 through TF32) and oneDNN on a host with AVX512_BF16 (bfloat16). A product no listed
// device runs is refused, never skipped.
#pragma once

#include "core/device.hpp"
#include "core/shape.hpp"
#include "kernels/matmul_vendor.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace minigpu::kernels {

/// True when a vendor GEMM multiplies `dtype` on device d's memory, through TF32 when `tf32`
/// (float32 only).
inline bool vendor_serves(Device d, DType dtype, bool tf32) {
  return tf32 ? dtype == DType::f32 && has_mixed_vendor_gemm(d) : has_vendor_gemm(d, dtype);
}

/// "" when, for each of `dtypes`, some device of `devices` has a vendor GEMM (and, with
/// `tf32`, a TF32 one for float32), else the one-line reason an input asking for `vendor`
/// (`vendor_tf32` when `tf32`) is refused: a product no listed device runs is never skipped.
inline std::string vendor_refusal(const std::vector<DType>& dtypes, const std::vector<Device>& devices,
                                  bool vendor, bool tf32) {
  const auto served = [&](DType t, bool through_tf32) {
    return std::any_of(devices.begin(), devices.end(),
                       [&](Device d) { return vendor_serves(d, t, through_tf32); });
  };
  const std::string where = describe(devices.front()) + (devices.size() > 1 ? " and the other devices" : "");
  if (vendor && !served(DType::f32, false)) return vendor_gemm_refusal(devices.front(), "tiled");
  for (DType t : dtypes) {
    if (vendor && !served(t, false))
      return "vendor has no " + to_string(t) + " GEMM for " + where +
             " in this build (cuBLAS on a CUDA GPU; oneDNN, bfloat16 only, on a CPU with AVX512_BF16): "
             "list [tiled, reference]";
  }
  if (tf32 && std::find(dtypes.begin(), dtypes.end(), DType::f32) == dtypes.end())
    return "vendor_tf32 is float32 through TF32 tensor cores: add float32 to dtypes";
  if (tf32 && !served(DType::f32, true))
    return "vendor_tf32 (cuBLAS's TF32 tensor cores) has no GEMM for " + where +
           " in this build: it needs a CUDA GPU";
  return "";
}

}  // namespace minigpu::kernels
