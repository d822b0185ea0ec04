// Formatting helpers: units and lists.
#include "io/format.hpp"

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
