// Values as bytes for the messages between the ranks of one job (comm/typed_exchange.hpp): a
// Writer appends values in order and a Reader takes them back in the same order. Numbers and
// enums travel as their bytes (every rank runs the same binary on the same kind of node),
// strings, vectors and maps with their length; a struct lists its fields once, beside it, in
// `template <class Archive> void fields(Archive& a, T& v) { a(v.x, v.y); }` (found by ADL),
// which both the Writer and the Reader walk: one list, so writing and reading cannot drift.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace minigpu::wire {

class Writer {
 public:
  template <class... Ts>
  void operator()(const Ts&... values) {
    (put(values), ...);
  }
  template <class T>
  void put(const T& value) {
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
      append(&value, sizeof(T));
    } else {
      fields(*this, const_cast<T&>(value));  // the type's list, beside it; a Writer only reads it
    }
  }
  void put(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    append(s.data(), s.size());
  }
  template <class T>
  void put(const std::vector<T>& items) {
    put(static_cast<std::uint64_t>(items.size()));
    for (const T& item : items) put(item);
  }
  template <class K, class V>
  void put(const std::map<K, V>& items) {
    put(static_cast<std::uint64_t>(items.size()));
    for (const auto& [key, value] : items) {
      put(key);
      put(value);
    }
  }
  const std::vector<char>& bytes() const { return bytes_; }

 private:
  void append(const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    bytes_.insert(bytes_.end(), c, c + n);
  }
  std::vector<char> bytes_;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& bytes) : bytes_(bytes) {}

  template <class... Ts>
  void operator()(Ts&... values) {
    (get(values), ...);
  }
  template <class T>
  void get(T& value) {
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
      take(&value, sizeof(T));
    } else {
      fields(*this, value);  // the type's list, beside it
    }
  }
  void get(std::string& s) {
    s.assign(length(), '\0');
    take(s.data(), s.size());
  }
  template <class T>
  void get(std::vector<T>& items) {
    items.assign(length(), T{});
    for (T& item : items) get(item);
  }
  template <class K, class V>
  void get(std::map<K, V>& items) {
    items.clear();
    for (std::size_t i = 0, n = length(); i < n; ++i) {
      K key{};
      get(key);
      get(items[key]);
    }
  }
  template <class T>
  T get() {
    T value{};
    get(value);
    return value;
  }
  /// Throws unless every byte was read: a reader out of step with its writer.
  void expect_end() const {
    if (at_ != bytes_.size())
      throw std::logic_error("wire: " + std::to_string(bytes_.size() - at_) + " bytes left unread");
  }

 private:
  std::size_t length() {
    const auto n = get<std::uint64_t>();
    if (n > bytes_.size() - at_) throw std::logic_error("wire: a length past the message's end");
    return static_cast<std::size_t>(n);
  }
  void take(void* p, std::size_t n) {
    if (n > bytes_.size() - at_) throw std::logic_error("wire: the message ended early");
    std::memcpy(p, bytes_.data() + at_, n);
    at_ += n;
  }
  const std::vector<char>& bytes_;
  std::size_t at_ = 0;
};

/// `value` written to bytes (by the one `writes`), moved by `move` (bytes in, bytes out: a
/// broadcast, a test's stand-in) and read back: what every typed exchange between ranks does.
template <class T, class Move>
T through(const T& value, bool writes, Move&& move) {
  Writer out;
  if (writes) out.put(value);
  const std::vector<char> bytes = move(out.bytes());
  Reader in(bytes);
  T result{};
  in.get(result);
  in.expect_end();
  return result;
}

}  // namespace minigpu::wire
