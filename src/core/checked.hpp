// Arithmetic on sizes derived from input, checked: a product that does not fit is an error,
// never a wrapped small number that passes a memory check and then overruns a buffer.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace minigpu {

/// a·b, or nothing when it does not fit in T.
template <class T>
std::optional<T> product_if_fits(T a, T b) {
  T out{};
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// a·b, or std::overflow_error naming `what` when it does not fit in T.
template <class T>
T checked_mul(T a, T b, const std::string& what) {
  const std::optional<T> product = product_if_fits(a, b);
  if (!product) {
    throw std::overflow_error(what + ": " + std::to_string(a) + " x " + std::to_string(b) + " overflows");
  }
  return *product;
}

}  // namespace minigpu
