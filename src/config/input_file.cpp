// Input files as text, checked before yaml-cpp sees them: readable, UTF-8, bounded, a block
// mapping at the root, exactly one document.
#include "config/input_file.hpp"

#include "core/errors.hpp"

#include <yaml-cpp/depthguard.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <vector>

namespace minigpu {
namespace {

// The whole file as text, or InputError saying why not (a directory, unreadable, ...).
std::string read_input_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a directory, not an input file");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open input file: " + std::strerror(errno ? errno : ENOENT));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path + ": cannot read input file: " + std::strerror(errno ? errno : EIO));
  return text;
}

// yaml-cpp 0.7 can spend gigabytes on a few hundred bytes of invalid UTF-8 (found by
// scripts/dev/fuzz.sh), so the text must be what an input is before yaml-cpp sees it: UTF-8
// without NUL bytes and of a sane size. Returns "" or what is wrong, with its position.
constexpr std::size_t kMaxInputBytes = std::size_t(1) << 20;
std::string text_problem(const std::string& text) {
  if (text.size() > kMaxInputBytes) return "is larger than 1 MiB: not an input file";
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::string at = ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
    if (c == 0) return at + "a NUL byte: not a text file";
    // The length of a UTF-8 sequence from its lead byte; continuation bytes are 10xxxxxx.
    const std::size_t length = c < 0x80           ? 1
                               : (c >> 5) == 0x6  ? 2
                               : (c >> 4) == 0xE  ? 3
                               : (c >> 3) == 0x1E ? 4
                                                  : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    if (!valid) return at + "bytes that are not UTF-8 text";
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += length;
  }
  return "";
}

// yaml-cpp 0.7 allocates without bound on a stray ',' at a document's root level (",\nx",
// "&a,n", "\"a\",n" or "[a],n" take gigabytes; found by scripts/dev/fuzz.sh), while inside a
// block mapping it reports an error. So every document must be a block mapping: its first line
// a key, no later line indented less than that key, and no line opening with ','. Flow depth,
// quotes and comments are followed so that [ ], { } and strings may span lines. Returns "" or
// the problem with its position.
bool is_key_line(const std::string& row, std::size_t first) {
  std::size_t colon = std::string::npos;
  if (row[first] == '"' || row[first] == '\'') {
    const std::size_t close = row.find(row[first], first + 1);
    if (close != std::string::npos && close + 1 < row.size() && row[close + 1] == ':') colon = close + 1;
  } else if (std::string("-?:,[]{}#&*!|>%@`").find(row[first]) == std::string::npos) {
    colon = row.find(':', first);
  }
  return colon != std::string::npos &&
         (colon + 1 == row.size() || row[colon + 1] == ' ' || row[colon + 1] == '\r');
}

std::string root_structure_problem(const std::string& text) {
  int depth = 0;
  char quote = 0;
  bool need_key = true;
  std::size_t root_indent = 0, line = 0;
  const auto at = [&](std::size_t column, const std::string& what) {
    return ":" + std::to_string(line) + ":" + std::to_string(column + 1) + ": " + what;
  };
  for (std::size_t begin = 0; begin <= text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string row = text.substr(begin, end - begin);
    begin = end + 1;
    ++line;
    const std::size_t first = row.find_first_not_of(" \t\r");
    if (!quote && depth == 0 && first != std::string::npos && row[first] != '#') {
      if (row.rfind("---", 0) == 0 || row.rfind("...", 0) == 0) {
        const std::size_t rest = row.find_first_not_of(" \t\r", 3);
        if (rest != std::string::npos && row[rest] != '#')
          return at(rest, "content on a document marker line");
        need_key = true;
        continue;
      }
      if (row[first] == '%') continue;  // a directive
      if (row[first] == ',') return at(first, "a line may start with ',' only inside [ ] or { }");
      if (need_key) {
        if (!is_key_line(row, first))
          return at(first, "an input is a mapping: its first line must be a key such as 'run:'");
        need_key = false;
        root_indent = first;
      } else if (first < root_indent) {
        return at(first, "indented less than the document's first key");
      }
    }
    char before = 0;  // the last non-blank character of the row so far
    for (std::size_t i = 0; i < row.size(); ++i) {
      const char c = row[i];
      if (quote) {
        if (c == '\\' && quote == '"') {
          ++i;  // an escaped character
        } else if (c == quote) {
          quote = 0;
        }
        before = c;
        continue;
      }
      if (c == '#' && (i == 0 || row[i - 1] == ' ' || row[i - 1] == '\t')) break;  // a comment
      // Quotes and brackets are indicators only where a value starts; inside a plain scalar
      // ("a[1", "it's") they are text. Inside [ ] or { } every bracket is an indicator.
      const bool after_indicator = std::string(":-?").find(before) != std::string::npos && i > 0 &&
                                   (row[i - 1] == ' ' || row[i - 1] == '\t');
      const bool value_start = depth > 0 || before == 0 || after_indicator;
      if ((c == '\'' || c == '"') && value_start) {
        quote = c;
      } else if ((c == '[' || c == '{') && value_start) {
        ++depth;
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
      }
      if (c != ' ' && c != '\t' && c != '\r') before = c;
    }
  }
  return "";
}

}  // namespace

YAML::Node load_input_file(const std::string& path) {
  std::string text = read_input_file(path);
  // A UTF-8 byte-order mark (some Windows editors write one) is not part of the first key.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  std::string problem = text_problem(text);
  if (problem.empty()) problem = root_structure_problem(text);
  if (!problem.empty()) throw InputError(path + (problem[0] == ':' ? "" : ": ") + problem);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp words its depth guard "bad file".
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                     ": nested too deeply for the YAML parser: not an input file");
  } catch (const YAML::ParserException& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                     ": YAML syntax error: " + e.msg);
  } catch (const std::bad_alloc&) {
    // Another input yaml-cpp cannot bound: say so rather than die.
    throw InputError(path + ": the YAML parser ran out of memory on this input (not a valid input file)");
  }
  if (documents.empty()) throw InputError(path + ": the input is empty");
  // yaml-cpp's Load would quietly keep only the first of several documents.
  if (documents.size() > 1) {
    const YAML::Mark m = documents[1].Mark();
    throw InputError(path + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) +
                     ": a second YAML document: an input file holds exactly one");
  }
  return documents.front();
}

}  // namespace minigpu
