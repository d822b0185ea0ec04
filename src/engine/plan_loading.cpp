// Collective plan loading: the checks every rank runs, and the agreement on their outcome.
#include "engine/plan_loading.hpp"

#include "comm/collectives.hpp"
#include "comm/mpi_session.hpp"
#include "comm/typed_exchange.hpp"
#include "core/binding.hpp"
#include "core/checked.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"
#include "io/provenance.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

namespace minigpu {

void check_memory_fits(const RunPlan& plan, const DeviceBinding& b) {
  // Ranks on one node share its host memory (cpu and emulated GPUs) and, when there are more
  // ranks than GPUs, share GPUs too: a case must fit that many times over.
  const std::uint64_t host_sharers = static_cast<std::uint64_t>(std::max(1, b.local_size));
  const std::uint64_t gpu_sharers =
      b.visible_gpus > 0 ? static_cast<std::uint64_t>((b.local_size + b.visible_gpus - 1) / b.visible_gpus)
                         : 1;
  for (const auto& planned : plan.experiments) {
    for (const auto& spec : planned.cases) {
      const std::uint64_t sharers = uses_host_memory(spec.device) ? host_sharers : gpu_sharers;
      const auto product = product_if_fits(spec.device_bytes, sharers);
      const std::uint64_t needed = product ? *product : std::numeric_limits<std::uint64_t>::max();
      const std::uint64_t available = device_memory_bytes(spec.device);
      if (!product || needed > available) {
        const auto located = planned.key_locations.find(spec.size_key);
        const std::string where = located != planned.key_locations.end() ? located->second : plan.input_file;
        throw InputError(where + ": experiment '" + planned.name + "' case '" + spec.label + "' needs " +
                         io::human_bytes(spec.device_bytes) + " per rank on " + describe(spec.device) + " (" +
                         std::to_string(sharers) + " rank(s) share it: " + io::human_bytes(needed) +
                         "), which has " + io::human_bytes(available));
      }
    }
  }
}

void require_same_cases_everywhere(const RunPlan& plan, const RunContext& ctx) {
  // A rank that saw a different environment (another device count, say) could expand the
  // input differently and desynchronise the job: compared before the first case.
  std::string mine;
  for (const auto& e : plan.experiments) {
    for (const auto& c : e.cases) mine += e.name + " / " + c.label + " / " + to_string(c.dtype) + "\n";
  }
  const auto all = comm::allgather_strings(mine, ctx.comm);
  for (std::size_t r = 1; r < all.size(); ++r) {
    if (all[r] == all[0]) continue;
    std::size_t line = 0, at = 0;
    while (at < all[0].size() && at < all[r].size() && all[0][at] == all[r][at]) {
      if (all[0][at] == '\n') ++line;
      ++at;
    }
    const auto nth = [](const std::string& list, std::size_t n) {
      std::size_t begin = 0;
      for (std::size_t i = 0; i < n && begin != std::string::npos; ++i) begin = list.find('\n', begin) + 1;
      if (begin == std::string::npos || begin >= list.size()) return std::string("(no case)");
      return list.substr(begin, list.find('\n', begin) - begin);
    };
    throw InputError(plan.input_file + ": rank " + std::to_string(r) +
                     " expanded a different list of cases: case " + std::to_string(line + 1) + " is '" +
                     nth(all[r], line) + "' there but '" + nth(all[0], line) +
                     "' on rank 0 (do all ranks see the same devices and environment?)");
  }
}

namespace {

// `load()` on every rank; if any rank throws InputError, every rank throws the lowest failing
// rank's (named when not rank 0), so all exit 2 together instead of some waiting in a collective.
template <class Load>
auto agreed_everywhere(const RunContext& ctx, Load load) -> decltype(load()) {
  std::optional<decltype(load())> loaded;
  std::string error;
  try {
    loaded.emplace(load());
  } catch (const InputError& e) {
    error = e.what();
  }
  if (!comm::all_ranks(error.empty(), ctx.comm)) {
    const auto errors = comm::allgather_strings(error, ctx.comm);
    for (std::size_t r = 0; r < errors.size(); ++r) {
      if (!errors[r].empty())
        throw InputError(r == 0 ? errors[r] : "rank " + std::to_string(r) + ": " + errors[r]);
    }
  }
  return std::move(*loaded);
}

}  // namespace

RunPlan load_plan_everywhere(const std::string& input, const PlanOptions& options, RunContext& ctx,
                             const DeviceSettler& settle) {
  RunPlan plan = agreed_everywhere(ctx, [&] {
    RunPlan loaded = load_run_plan(input, ctx, options, settle);
    check_memory_fits(loaded, ctx.binding);
    return loaded;
  });
  require_same_cases_everywhere(plan, ctx);
  return plan;
}

std::map<std::string, CaseResult> load_resumed_everywhere(const std::string& dir, const RunPlan& plan,
                                                          const RunContext& ctx) {
  if (dir.empty()) return {};
  std::string text, error;
  if (ctx.rank() == 0) {
    const auto read = io::read_run_json(dir);
    if (read)
      text = *read;
    else
      error = "cannot read run.json there";
  }
  text = comm::allgather_strings(error.empty() ? text : "", ctx.comm)[0];
  error = comm::allgather_strings(error, ctx.comm)[0];
  try {
    if (!error.empty()) throw InputError(error);
    return io::resumable_results(text, plan.resolved_input);
  } catch (const InputError& e) {
    throw InputError("--resume " + dir + ": " + e.what());
  }
}

io::RunRecord plan_record(const RunPlan& plan, const RunContext& ctx) {
  io::RunRecord record;
  record.provenance = io::provenance();
  record.provenance.mpi_library = mpi_library_version();
  record.ranks = gather_placements(ctx.binding, ctx.comm);
  record.input_file = plan.input_file;
  record.resolved_input = plan.resolved_input;
  record.overrides = plan.overrides;
  for (const auto& planned : plan.experiments) {
    const RegisteredExperiment* info = ExperimentRegistry::find(planned.name);
    record.experiments.push_back({planned.name, info ? info->description : "", info ? info->figure : ""});
  }
  return record;
}

std::vector<io::RankPlacement> gather_placements(const DeviceBinding& binding,
                                                 const comm::Communicator& comm) {
  return comm::allgather_values(io::rank_placement(comm.rank(), processor_name(), binding), comm);
}

}  // namespace minigpu
