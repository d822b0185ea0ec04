// Tensor shapes (rank 0 for reduction results, 1 and 2 for user tensors) and dtypes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace minigpu {

using Shape = std::vector<std::int64_t>;

/// Element count of a shape (1 for rank 0).
std::int64_t numel(const Shape& shape);
/// "(2, 3)".
std::string to_string(const Shape& shape);
/// Throws ShapeError unless `shape` is rank 1 or 2 with every extent >= 1.
void validate_user_shape(const Shape& shape, const char* what);

/// The element types. bf16 and f16 are storage types (core/low_precision.hpp) that compute in
/// float; only experiments that say so take them (read_dtypes), and with_dtype() never does.
enum class DType { f32, f64, bf16, f16 };
std::string to_string(DType t);
/// Parses "float32"/"float"/"f32", "float64"/"double"/"f64", "bfloat16"/"bf16" or
/// "float16"/"half"/"f16"; throws std::invalid_argument.
DType parse_dtype(const std::string& text);
/// bfloat16 or float16.
bool is_low_precision(DType t);
/// Half the gap from 1 to the next number of the type (2^-53, 2^-24, 2^-8, 2^-11): the largest
/// relative error of one rounding.
double unit_roundoff(DType t);

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::f32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::f64;
};

/// The relative error a check allows in a result that T rounds a few times per element
/// (elementwise chains, one linear layer, a sampled product): about 100 float32 ulps
/// (2^-23 = 1.2e-7) and 4500 float64 ulps (2^-52 = 2.2e-16); products over k terms scale it
/// themselves (kernels/matmul_check.hpp derives theirs from the mantissa instead).
template <class T>
constexpr double relative_tolerance() {
  return sizeof(T) == 4 ? 1e-5 : 1e-12;
}

}  // namespace minigpu
