// Declared case lists: an experiment's cases are the combinations of its axes (dtypes,
// devices, sizes, its own modes). These helpers name an axis's values once, walk the
// combinations in nested-loop order and fill the spec fields every case sets, so configure()
// says which axes and what each case is.
#pragma once

#include "core/device.hpp"
#include "core/shape.hpp"
#include "io/results.hpp"

#include <string>
#include <utility>
#include <vector>

namespace minigpu {

/// f(a, b, ...) for every combination of one item from each list, the first list outermost:
/// the order of the nested loops it replaces, so case order (and the results' rows) is kept.
template <class F>
void for_each_combination(F&& f) {
  f();
}
template <class F, class T, class... Lists>
void for_each_combination(F&& f, const std::vector<T>& first, const Lists&... rest) {
  for (const T& item : first) {
    for_each_combination([&](const auto&... others) { f(item, others...); }, rest...);
  }
}

/// An axis's values with their names, declared once: read from the input by
/// ConfigNode::get_named_list, written into labels and params by name_of.
template <class Value>
using Names = std::vector<std::pair<std::string, Value>>;

/// The name `names` gives `value`, "" when it gives none.
template <class Value>
std::string name_of(const Names<Value>& names, const Value& value) {
  for (const auto& [name, v] : names) {
    if (v == value) return name;
  }
  return {};
}

using CaseParams = std::vector<std::pair<std::string, std::string>>;

/// A spec with the fields every case sets. The optional ones (device_bytes, flops_estimate,
/// ceiling_scale, fence_after_run) are set on the result by the cases that have them.
inline CaseSpec case_spec(std::string label, CaseParams params, Device device, DType dtype,
                          std::string ceiling, std::string size_key) {
  CaseSpec spec;
  spec.label = std::move(label);
  spec.params = std::move(params);
  spec.device = device;
  spec.dtype = dtype;
  spec.ceiling = std::move(ceiling);
  spec.size_key = std::move(size_key);
  return spec;
}

}  // namespace minigpu
