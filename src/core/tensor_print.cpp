// Tensor printing; the copy to the host is explicit, through to_vector().
#include "core/tensor_print.hpp"

#include <ostream>
#include <sstream>

namespace minigpu {
namespace {

constexpr std::int64_t kSummariseAbove = 1000;
constexpr std::int64_t kEdgeItems = 3;

template <class T>
void print_row(std::ostream& os, const std::vector<T>& v, std::int64_t offset, std::int64_t cols,
               bool summarise) {
  os << '[';
  for (std::int64_t j = 0; j < cols; ++j) {
    if (summarise && j == kEdgeItems && cols > 2 * kEdgeItems) {
      os << "..., ";
      j = cols - kEdgeItems;
    }
    os << v[static_cast<std::size_t>(offset + j)] << (j + 1 < cols ? ", " : "");
  }
  os << ']';
}

}  // namespace

template <class T>
std::ostream& operator<<(std::ostream& os, const Tensor<T>& t) {
  if (!t.defined()) return os << "tensor(undefined)";
  const std::vector<T> v = t.to_vector();
  const bool summarise = t.numel() > kSummariseAbove;
  std::ostringstream body;
  body.precision(6);
  if (t.rank() == 0) {
    body << v[0];
  } else if (t.rank() == 1) {
    print_row(body, v, 0, t.cols(), summarise);
  } else {
    body << '[';
    for (std::int64_t i = 0; i < t.rows(); ++i) {
      if (summarise && i == kEdgeItems && t.rows() > 2 * kEdgeItems) {
        body << "...,\n        ";
        i = t.rows() - kEdgeItems;
      }
      print_row(body, v, i * t.cols(), t.cols(), summarise);
      body << (i + 1 < t.rows() ? ",\n        " : "");
    }
    body << ']';
  }
  return os << "tensor(" << body.str() << ", device=" << describe(t.device()) << ')';
}

template std::ostream& operator<<(std::ostream&, const Tensor<float>&);
template std::ostream& operator<<(std::ostream&, const Tensor<double>&);

}  // namespace minigpu
