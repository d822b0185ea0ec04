// A case's rate as a share of its ceilings, and why a share above 100 % is there.
#include "engine/ceiling_share.hpp"

#include "io/format.hpp"

#include <algorithm>
#include <string>

namespace minigpu {

namespace {

// Why a rate passes its bandwidth ceiling, with the sizes where they say it. A sized ceiling is
// the one measured on the fewest bytes at least the case's (CeilingTable::find_for), up to 4x
// more: a case touching 2.25 MiB (uni 256 KiB x8: one send buffer and 8 receive slots) meets
// host_memcpy@4MiB, 8 MiB touched, which outgrows a 2 MiB L2 its own data nearly fit, and read
// 130 and 166 % of it in two quickstart runs and 160 % in inputs/transfer.yaml's (2-core Xeon
// VM, 2026-12-03).
std::string bandwidth_above_because(const Ceiling& c, std::uint64_t case_bytes) {
  const std::string otherwise =
      "noise, or a ceiling measured on a busier machine (minigpu ceilings measures again)";
  if (c.bytes <= 0 || static_cast<std::uint64_t>(c.bytes) <= case_bytes) return otherwise;
  return "the case touches " + io::human_bytes(case_bytes) + " and its ceiling's kernel " +
         io::human_bytes(static_cast<std::uint64_t>(c.bytes)) +
         " (the nearest measured size at or above): data that fit a cache the ceiling's outgrow run faster "
         "than it; or " +
         otherwise;
}

}  // namespace

void attach_ceiling(CaseResult& r, const CeilingTable& table) {
  const Ceiling* c = table.find_for(r.spec.ceiling, static_cast<std::int64_t>(r.spec.device_bytes));
  if (!c || c->value <= 0) return;
  const bool bandwidth = c->unit == "GB/s";
  const double rate = bandwidth ? r.gbps : r.gflops;
  if (rate <= 0) return;
  const int scale = std::max(1, r.spec.ceiling_scale);
  r.ceiling = CeilingShare{c->name, counted_times(scale, c->label), 100 * rate / (scale * c->value), scale};
  if (const Ceiling* peak = table.find(r.spec.peak); peak && peak->value > 0) {
    r.peak = CeilingShare{peak->name, counted_times(scale, peak->label), 100 * rate / (scale * peak->value),
                          scale};
    if (r.peak->percent > 100) {
      const std::string& doubt = table.doubt_about(*peak);
      r.peak->above_because = !doubt.empty()
                                  ? "the ceilings are doubtful: " + doubt
                                  : "no GEMM passes the FMA units' peak: noise, or a peak measured on a "
                                    "busier machine (minigpu ceilings measures again)";
      r.mark_unreliable(io::significant_apart(r.peak->percent, 100, 3) + " % of " + r.peak->label + ": " +
                        r.peak->above_because);
    }
  }
  if (r.ceiling->percent <= 100) return;
  const std::string& doubt = table.doubt_about(*c);
  r.ceiling->above_because =
      !doubt.empty() ? "the ceilings are doubtful: " + doubt
      : bandwidth    ? bandwidth_above_because(*c, r.spec.device_bytes)
      : c->on_host()
          ? "the ceiling is its GEMM's fastest of n = 64 ... 1024 (ceilings/gemm_measure.hpp): noise, a "
            "size between those, or a ceiling measured on a busier machine (minigpu ceilings measures again)"
          // A GPU GEMM's ceiling times one size; larger products run faster (cuBLAS DGEMM at
          // n = 10000 read 102.5 % of its n = 4096 on the H200).
          : "the ceiling times one size (" + c->how + "): a larger product can run faster, or noise";
}

}  // namespace minigpu
