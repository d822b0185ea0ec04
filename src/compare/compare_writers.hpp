// The forms of a comparison: a console table, a JSON document and a CSV (one row per case).
#pragma once

#include "compare/comparison.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>

namespace minigpu::compare {

/// Both sides' descriptions, the method line, a row per matched case (medians, ratio, its
/// interval, verdict, note), the cases one side lacks, the findings side by side and a
/// summary; with `fail_below`, which pairs fail the health check.
void write_comparison(std::ostream& os, const Comparison& c, std::optional<double> fail_below);

/// The same as JSON: {"baseline", "candidate", "method", "cases", "only_in_baseline",
/// "only_in_candidate", "findings", "summary"}, and "fail_below" when asked.
nlohmann::json comparison_json(const Comparison& c, std::optional<double> fail_below);

/// One row per case: matched pairs, then the cases only one side has (verdict
/// only_in_baseline / only_in_candidate, their other columns empty).
std::string comparison_csv(const Comparison& c);

}  // namespace minigpu::compare
