// Formatting helpers: units, numbers and lists.
#include "io/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace minigpu::io {

std::string human_bytes(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

std::string significant(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.*g", digits, value);
  return text;
}

std::string significant_apart(double value, double other, int digits) {
  // At least the digits of its whole part: "240", never "2.4e+02".
  if (std::fabs(value) >= 1 && std::isfinite(value))
    digits = std::max(digits, std::min(9, static_cast<int>(std::floor(std::log10(std::fabs(value)))) + 1));
  while (digits < 9 && significant(value, digits) == significant(other, digits)) ++digits;
  return significant(value, digits);
}

namespace {

/// `value` rounded down (or up) at `digits` significant digits.
double rounded_outward(double value, int digits, bool up) {
  if (value == 0 || !std::isfinite(value)) return value;
  const double scale = std::pow(10.0, digits - 1 - std::floor(std::log10(std::fabs(value))));
  // A product a rounding error off the grid (1.04e-3 * 1e5 = 103.99999999999999) is on it.
  double x = value * scale;
  if (std::fabs(x - std::round(x)) < 1e-9 * std::fabs(x)) x = std::round(x);
  return (up ? std::ceil(x) : std::floor(x)) / scale;
}

}  // namespace

std::string interval(double low, double high, int digits, std::optional<double> mark) {
  for (;; ++digits) {
    const double shown_low = rounded_outward(low, digits, false),
                 shown_high = rounded_outward(high, digits, true);
    const bool sides_kept =
        !mark || ((low <= *mark || shown_low > *mark) && (high >= *mark || shown_high < *mark));
    if (sides_kept || digits >= 9)
      return "[" + significant(shown_low, digits) + ", " + significant(shown_high, digits) + "]";
  }
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? separator : "") + items[i];
  return text;
}

std::string counted(std::int64_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string bracketed(const std::vector<std::string>& items) { return "[" + joined(items, ", ") + "]"; }

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_number(double value) {
  std::ostringstream os;
  os.precision(9);
  os << value;
  return os.str();
}

}  // namespace minigpu::io
