// Shape and dtype helpers shared by every tensor operation.
#include "core/shape.hpp"

#include "core/errors.hpp"

#include <stdexcept>

namespace minigpu {

std::int64_t numel(const Shape& shape) {
  std::int64_t n = 1;
  for (auto extent : shape) n *= extent;
  return n;
}

std::string to_string(const Shape& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

void validate_user_shape(const Shape& shape, const char* what) {
  if (shape.empty()) throw ShapeError(std::string(what) + ": empty shape; tensors have rank 1 or 2");
  if (shape.size() > 2) {
    throw ShapeError(std::string(what) + ": shape " + to_string(shape) + " has rank " +
                     std::to_string(shape.size()) + "; tensors have rank 1 or 2");
  }
  for (auto extent : shape) {
    if (extent <= 0) {
      throw ShapeError(std::string(what) + ": shape " + to_string(shape) +
                       " has a non-positive extent; every extent must be >= 1");
    }
  }
}

std::string to_string(DType t) {
  switch (t) {
    case DType::f32:
      return "float32";
    case DType::f64:
      return "float64";
    case DType::bf16:
      return "bfloat16";
    case DType::f16:
      return "float16";
  }
  return "?";
}

DType parse_dtype(const std::string& text) {
  if (text == "float32" || text == "float" || text == "f32") return DType::f32;
  if (text == "float64" || text == "double" || text == "f64") return DType::f64;
  if (text == "bfloat16" || text == "bf16") return DType::bf16;
  if (text == "float16" || text == "half" || text == "f16") return DType::f16;
  throw std::invalid_argument("'" + text +
                              "' is not a dtype (expected float32, float64, bfloat16 or float16)");
}

bool is_low_precision(DType t) { return t == DType::bf16 || t == DType::f16; }

double unit_roundoff(DType t) {
  switch (t) {
    case DType::f64:
      return 0x1p-53;
    case DType::f32:
      return 0x1p-24;
    case DType::bf16:
      return 0x1p-8;
    case DType::f16:
      return 0x1p-11;
  }
  return 1.0;
}

}  // namespace minigpu
