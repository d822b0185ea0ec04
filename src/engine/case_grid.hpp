// Declared case lists: an experiment's cases are the combinations of its axes (dtypes,
// devices, sizes, its own modes). These helpers name an axis's values once, walk the
// combinations in nested-loop order and fill the spec fields every case sets (formatting its
// params, and a GEMM case's kernel and ceiling), so configure() says which axes and what each
// case is.
#pragma once

#include "ceilings/ceilings.hpp"
#include "core/device.hpp"
#include "core/shape.hpp"
#include "gemm/choice.hpp"
#include "io/results.hpp"

#include <string>
#include <type_traits>
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

/// A param's value as its column shows it: text as given, integers in decimal. Implicit, so a
/// case lists its values ({"n", n}) and the formatting is done here once.
struct ParamText {
  std::string text;
  ParamText(std::string s) : text(std::move(s)) {}
  ParamText(const char* s) : text(s) {}
  template <class Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  ParamText(Int value) : text(std::to_string(value)) {}
};

/// A case's params, in the order of their columns.
using CaseParams = std::vector<std::pair<std::string, ParamText>>;

/// A spec with the fields every case sets. The optional ones (device_bytes, flops_estimate,
/// ceiling_scale, fence_after_run) are set on the result by the cases that have them.
inline CaseSpec case_spec(std::string label, CaseParams params, Device device, DType dtype,
                          std::string ceiling, std::string size_key) {
  CaseSpec spec;
  spec.label = std::move(label);
  for (auto& [key, value] : params) spec.params.emplace_back(std::move(key), std::move(value.text));
  spec.device = device;
  spec.dtype = dtype;
  spec.ceiling = std::move(ceiling);
  spec.peak = arithmetic_peak_for(spec.ceiling);
  spec.size_key = std::move(size_key);
  return spec;
}

/// case_spec for a case whose products run pick.kernel: its params end with `kernel` and
/// `kernel_choice` (what ran, and why), and its rate is bounded by the device's GEMM ceiling.
inline CaseSpec gemm_case_spec(std::string label, CaseParams params, const GemmPick& pick, Device device,
                               DType dtype, std::string size_key) {
  params.emplace_back("kernel", to_string(pick.kernel));
  params.emplace_back("kernel_choice", pick.why);
  CaseSpec spec = case_spec(std::move(label), std::move(params), device, dtype, gemm_ceiling(device, dtype),
                            std::move(size_key));
  spec.peak = gemm_peak(device, dtype, pick.kernel);
  return spec;
}

}  // namespace minigpu
