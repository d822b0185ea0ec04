// Small formatting helpers shared by the writers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace minigpu::io {

/// 1536 -> "1.5 KiB", 24 GiB -> "24.0 GiB".
std::string human_bytes(std::uint64_t bytes);
/// `value` with `digits` significant digits, as printf's %g: 0.00123, 4.5e+09.
std::string significant(double value, int digits = 3);
/// `value` with the fewest significant digits, from `digits` (or its whole part's) up to 9, that
/// print it apart from `other` as printed with as many: "cv 25.3 % above 25 %", never "cv 25 %
/// above 25 %"; "cv 240 %", never "cv 2.4e+02 %".
std::string significant_apart(double value, double other, int digits = 2);
/// "[low, high]" rounded outward at `digits` significant digits, so the printed interval holds
/// the true one (and any median inside it): [98.95, 99.04] -> "[98.9, 99.1]", never "[99, 99]".
/// More digits, up to 9, where an end lies past `mark` (1 for a ratio, 100 for an efficiency)
/// but would print on its near side: [1.0004, 1.003] about 1 -> "[1.0004, 1.003]".
std::string interval(double low, double high, int digits = 3, std::optional<double> mark = std::nullopt);
/// {"a", "b"}, ", " -> "a, b".
std::string joined(const std::vector<std::string>& items, const std::string& separator);
/// 1, "thread" -> "1 thread"; 2, "thread" -> "2 threads".
std::string counted(std::int64_t count, const std::string& noun);
/// {"a", "b"} -> "[a, b]".
std::string bracketed(const std::vector<std::string>& items);
/// A CSV field: as is, or quoted with inner quotes doubled when it holds a comma, quote or newline.
std::string csv_field(const std::string& text);
/// printf's `format` applied to numbers ("%.1e", 3e-7 -> "3.0e-07"), at most 255 characters.
template <class... Numbers>
std::string formatted(const char* format, Numbers... values) {
  char text[256];
  std::snprintf(text, sizeof text, format, values...);
  return text;
}
/// A number for CSV: 9 significant digits, shortest form (0.5, 1.23456789e-07).
std::string csv_number(double value);

}  // namespace minigpu::io
