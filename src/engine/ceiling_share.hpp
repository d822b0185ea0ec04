// A case's rate as a share of the ceilings it is bounded by (src/ceilings): the best kernel of
// its kind and, for a GEMM, the FMA units' peak.
#pragma once

#include "io/ceiling_table.hpp"
#include "io/results.hpp"

namespace minigpu {

/// The row's rate as a share of the ceiling its case names, where that ceiling was measured:
/// for a bandwidth, the one measured on as many bytes as the case touches (find_for), so that
/// data in a cache meet a ceiling in the same cache. A share above 100 % is past a bound the row
/// cannot pass: it carries the reason (the table's doubt where it has one), the console and
/// report flag it, and so does every finding that quotes it (Finding::quoting_share_of); the
/// row's timing itself stands. A GEMM above its FMA peak is also marked unreliable.
void attach_ceiling(CaseResult& r, const CeilingTable& table);

}  // namespace minigpu
