// The run pipeline in numbered steps; each step's work lives in its own layer.
#include "app/run_command.hpp"

#include "app/ceilings_command.hpp"
#include "app/data_paths.hpp"
#include "app/stop_signals.hpp"
#include "comm/collectives.hpp"
#include "config/config_node.hpp"
#include "core/backend_blas.hpp"
#include "core/binding.hpp"
#include "core/cpu_info.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/fault_injection.hpp"
#include "experiments/gemm_auto.hpp"
#include "experiments/plan_estimate.hpp"
#include "experiments/registry.hpp"
#include "experiments/run_plan.hpp"
#include "experiments/runner.hpp"
#include "io/console_writer.hpp"
#include "io/run_record.hpp"
#include "minigpu_build_info.hpp"
#include "minigpu_version.hpp"

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>

namespace minigpu {
namespace {

// Every collective of the run pairs up only if every rank runs the same cases in the same
// order; a rank that saw a different environment (another device count, say) could expand
// the input differently and desynchronise the job. Compared before the first case.
void require_same_cases_everywhere(const RunPlan& plan, const RunContext& ctx) {
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

// The finished cases of an earlier run of this very input (--resume DIR), read on rank 0 and
// shared, so every rank skips the same cases. Bad directories are bad input (exit 2).
std::map<std::string, CaseResult> load_resumed(const std::string& dir, const RunPlan& plan,
                                               const MpiSession& mpi, const RunContext& ctx) {
  std::map<std::string, CaseResult> resumed;
  if (dir.empty()) return resumed;
  std::string text, error;
  if (mpi.is_root()) {
    std::ifstream in(dir + "/run.json");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
    if (!in) error = "--resume " + dir + ": cannot read run.json there";
  }
  text = comm::allgather_strings(error.empty() ? text : "", ctx.comm)[0];
  error = comm::allgather_strings(error, ctx.comm)[0];
  if (!error.empty()) throw InputError(error);
  try {
    const auto record = nlohmann::json::parse(text);
    // The same input and settings; where results go may differ.
    auto before = record.value("resolved_input", nlohmann::json()), now = plan.resolved_input;
    if (before.contains("run")) before["run"].erase("output_dir");
    now["run"].erase("output_dir");
    if (before != now) error = "that run was of a different input (or other settings)";
    for (auto& [key, result] : io::recorded_results(record)) {
      if (result.check.passed) resumed.emplace(key, std::move(result));  // failed cases run again
    }
  } catch (const nlohmann::json::exception& e) {
    error = std::string("run.json is not valid JSON: ") + e.what();
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  if (!error.empty()) throw InputError("--resume " + dir + ": " + error);
  return resumed;
}

// Input is judged on every rank; if any rank rejects it, every rank throws the same error,
// so all exit 2 together instead of some waiting in a collective forever.
RunPlan load_plan_collectively(const RunOptions& options, RunContext& ctx) {
  std::optional<RunPlan> plan;
  std::string error;
  try {
    PlanOptions plan_options;
    if (!options.output_dir.empty()) plan_options.output_dir = options.output_dir;
    plan_options.only = options.only;
    plan_options.overrides = options.overrides;
    plan = load_run_plan(options.input, ctx, plan_options);
    check_memory_fits(*plan);
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
  require_same_cases_everywhere(*plan, ctx);
  return std::move(*plan);
}

// Every rank's placement, gathered so rank 0 can print and record it.
nlohmann::json rank_map(const RunContext& ctx) {
  const DeviceBinding& b = rank_binding();
  const int id = bound_device_id();
  std::string name = describe(try_gpu());
  if (id >= 0 && !gpus_are_emulated()) name += " = " + gpu_properties(id).name;
  if (id >= 0 && gpus_are_emulated()) name = "emulated GPU " + std::to_string(id);
  const nlohmann::json mine = {{"rank", ctx.rank},
                               {"host", processor_name()},
                               {"local_rank", b.local_rank},
                               {"device_id", id},
                               {"device", name}};
  nlohmann::json all = nlohmann::json::array();
  for (const auto& text : comm::allgather_strings(mine.dump(), ctx.comm))
    all.push_back(nlohmann::json::parse(text));
  return all;
}

io::Provenance provenance(const RunPlan& plan, const RunContext& ctx) {
  const HostInfo host = host_info();
  nlohmann::json j;
  j["minigpu"] = {{"version", MINIGPU_VERSION}, {"git", MINIGPU_GIT_HASH}};
  j["kokkos"] = {{"version", kokkos_version_string()},
                 {"backends", kokkos_backends()},
                 {"default_execution_space", Kokkos::DefaultExecutionSpace::name()}};
  j["host"] = {{"hostname", host.hostname},
               {"cpu", host.cpu_model},
               {"logical_cores", host.logical_cores},
               {"memory_bytes", host.memory_bytes}};
  const CpuCaches& caches = cpu_caches();
  j["host"]["vector_isa"] = kHostVectorIsa;
  j["host"]["vector_bytes"] = kHostVectorBytes;
  j["host"]["cache_bytes"] = {{"l1d", caches.l1d}, {"l2", caches.l2}, {"l3", caches.l3}};
  j["build"] = {
      {"compiler", MINIGPU_HOST_COMPILER}, {"type", MINIGPU_BUILD_TYPE}, {"flags", MINIGPU_HOST_FLAGS}};
  const HostBlasInfo blas = host_blas_info();
  j["blas"] = {{"library", blas.library}, {"config", blas.config}, {"core", blas.core}};
  if (!blas.kernel_warning.empty()) j["blas"]["warning"] = blas.kernel_warning;
  j["threads"] = {{"kokkos_host", Kokkos::DefaultHostExecutionSpace().concurrency()}, {"blas", blas.threads}};
  j["environment"] = nlohmann::json::object();
  for (const char* name :
       {"OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "KOKKOS_NUM_THREADS"}) {
    const char* value = std::getenv(name);
    j["environment"][name] = value ? value : "";
  }
  nlohmann::json devices = nlohmann::json::array();
  for (Device d : try_all_gpus()) devices.push_back(describe(d));
  j["devices"] = {{"num_gpus", num_gpus()}, {"gpus", devices}, {"emulated", gpus_are_emulated()}};
  j["mpi"] = {{"size", ctx.ranks}, {"ranks", rank_map(ctx)}};
  j["input_file"] = plan.input_file;
  j["resolved_input"] = plan.resolved_input;
  j["overrides"] = plan.overrides;
  j["experiments"] = nlohmann::json::array();
  for (const auto& planned : plan.experiments) {
    const ExperimentInfo* info = ExperimentRegistry::find(planned.name);
    j["experiments"].push_back(
        {{"name", planned.name},
         {"description", info ? info->description : ""},
         {"figure", info && !info->figure.empty() ? nlohmann::json(info->figure) : nlohmann::json(nullptr)}});
  }
  return io::Provenance{j};
}

// A status line redrawn in place needs a terminal. Under an MPI launcher a rank's stdout may
// be a pseudo-terminal whatever mpirun writes to, so there only MINIGPU_PROGRESS=live (set by
// scripts/run.sh when its own output is a terminal) turns it on; `lines` turns it off.
bool live_progress() {
  const char* asked = std::getenv("MINIGPU_PROGRESS");
  if (asked && std::string(asked) == "live") return true;
  if (asked && std::string(asked) == "lines") return false;
  for (const char* launcher : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_ID"}) {
    if (std::getenv(launcher)) return false;
  }
  return isatty(STDOUT_FILENO) != 0;
}

// The figures come from the project's own plotting script, installed or in the source tree.
bool plot_results(const std::string& dir) {
  const std::string command = "python3 '" + (data_paths().scripts / "plot.py").string() + "' '" + dir + "'";
  return std::system(command.c_str()) == 0;
}

std::string compact_stamp(const std::string& iso) {
  std::string stamp;
  for (char c : iso) {
    if (c != '-' && c != ':') stamp += c;
  }
  return stamp;
}

// Rank 0 creates the run's directory (or, for a dry run, proves it could); every rank learns
// whether it could, since an unusable output location ends the job as bad input.
std::optional<io::RunDirectory> open_run_directory(const RunPlan& plan, const MpiSession& mpi,
                                                   const RunContext& ctx, bool dry_run) {
  std::optional<io::RunDirectory> directory;
  std::string problem;
  if (mpi.is_root()) {
    try {
      if (dry_run) {
        io::probe_output_dir(plan.run.output_dir);
      } else {
        directory.emplace(plan.run.output_dir, plan.run.name, compact_stamp(utc_now_iso8601()));
      }
    } catch (const std::system_error& e) {
      problem = plan.run.output_dir_source + ": cannot create a run directory in '" +
                shown(plan.run.output_dir) + "': " + e.code().message();
    }
  }
  if (!comm::all_ranks(problem.empty(), ctx.comm)) {
    throw InputError(mpi.is_root() ? problem : "rank 0 cannot create the run directory");
  }
  return directory;
}

}  // namespace

int run_command(const RunOptions& options, const MpiSession& mpi) {
  // 1. Validate the whole input (and memory needs) before anything runs or is written.
  RunContext ctx;
  ctx.rank = mpi.rank();
  ctx.ranks = mpi.size();
  cache_gemm_choices(host_build_cache_key());  // `kernel: auto` may measure while configuring
  RunPlan plan = load_plan_collectively(options, ctx);
  const std::map<std::string, CaseResult> resumed = load_resumed(options.resume, plan, mpi, ctx);
  io::ConsoleWriter console(std::cout, live_progress());
  // 2. The run's directory exists before the first case (a dry run makes it and takes it away
  //    again): an unusable output location is bad input (exit 2), found now, not after hours.
  std::optional<io::RunDirectory> directory = open_run_directory(plan, mpi, ctx, options.dry_run);
  if (options.dry_run) {
    if (mpi.is_root()) {
      std::vector<std::pair<std::string, std::vector<CaseSpec>>> cases;
      for (const auto& e : plan.experiments) cases.emplace_back(e.name, e.cases);
      console.plan(plan.resolved_input, cases, mpi.size(), describe(estimate_plan(plan, cached_ceilings())),
                   device_warnings(plan));
    }
    return kExitOk;
  }
  // The machine's ceilings, before the first case: every rate row is set against them.
  const bool bounded = std::any_of(plan.experiments.begin(), plan.experiments.end(), [](const auto& e) {
    return std::any_of(e.cases.begin(), e.cases.end(), [](const CaseSpec& c) { return !c.ceiling.empty(); });
  });
  if (bounded) plan.ceilings = obtain_ceilings(false, ctx.comm);
  io::Provenance record = provenance(plan, ctx);
  if (!options.resume.empty()) record.fields["resumed_from"] = options.resume;
  record.fields["ceilings"] = plan.ceilings.to_json();
  record.fields["ceilings_source"] = plan.ceilings.source;
  record.fields["gemm_auto"] = gemm_choices_record();
  // 3. Run every case; rank 0 prints rows as they finish and rewrites the directory's files,
  //    so a run killed outright still leaves its finished cases there.
  if (mpi.is_root()) {
    console.host_build(record.fields);
    console.rank_map(record.fields["mpi"]["ranks"]);
    if (bounded) console.ceilings(record.fields["ceilings"], plan.ceilings.source);
    console.warnings(device_warnings(plan));
  }
  install_stop_handlers();
  std::vector<CaseResult> finished;
  const auto save = [&](const RunOutcome* outcome, const char* status) {
    maybe_inject_fault("write", ctx.rank);
    record.fields["status"] = status;
    const auto& results = outcome ? outcome->results : finished;
    const auto& findings = outcome ? outcome->findings : std::vector<Finding>{};
    try {
      directory->write(io::results_csv(results), io::run_json(record, results, findings));
    } catch (const std::exception& e) {
      // A full disk: keep the files of the last good write, say so in them if there is room,
      // and rename the directory .failed-XXXXXX so nobody takes it for a run in progress.
      record.fields["status"] = "failed";
      record.fields["failure"] = e.what();
      try {
        directory->write(io::results_csv(results), io::run_json(record, results, findings));
      } catch (const std::exception&) {
      }
      throw std::runtime_error(std::string(e.what()) + "; the run stopped, and what was written is kept in " +
                               directory->mark_failed());
    }
  };
  record.fields["started"] = utc_now_iso8601();
  RunOutcome outcome = run_plan(
      plan, ctx,
      [&](const CaseResult& r, int index, int total, double elapsed) {
        if (!mpi.is_root()) return;
        console.case_finished(r, index, total, elapsed);
        finished.push_back(r);
        save(nullptr, "running");
      },
      stop_signal_received, resumed);
  // 4. Rank 0 completes the record and moves it into place; every rank agrees on the exit code.
  std::string dir;
  if (mpi.is_root()) {
    record.fields["started"] = outcome.started_utc;
    record.fields["finished"] = outcome.finished_utc;
    record.fields["cases_planned"] = outcome.cases_planned;
    for (const auto& [key, section] : outcome.sections.items()) record.fields[key] = section;
    if (outcome.stop_signal != 0) {
      record.fields["stop_reason"] = "signal " + std::to_string(outcome.stop_signal) + " (" +
                                     strsignal(outcome.stop_signal) + "): stopped after " +
                                     std::to_string(outcome.results.size()) + " of " +
                                     std::to_string(outcome.cases_planned) + " cases";
    }
    save(&outcome, outcome.stop_signal != 0 ? "interrupted" : "complete");
    dir = directory->finish();
    console.findings(outcome.findings);
    console.summary(outcome.results, dir);
    if (outcome.stop_signal != 0) {
      std::cout << "interrupted by " << strsignal(outcome.stop_signal) << ": " << outcome.results.size()
                << " of " << outcome.cases_planned << " cases finished and kept in " << dir << '\n';
    }
  }
  if (outcome.stop_signal != 0) return kExitSignalBase + outcome.stop_signal;
  // 5. Figures, if asked for; a plotting failure is reported but leaves the results intact.
  bool plotted = true;
  if (options.plot && mpi.is_root()) {
    std::cout.flush();
    plotted = plot_results(dir);
    if (!plotted) std::cerr << "minigpu: error: scripts/plot.py failed on " << dir << '\n';
  }
  if (!outcome.all_verified) return kExitVerifyFailed;
  return comm::all_ranks(plotted, ctx.comm) ? kExitOk : kExitRuntimeError;
}

int list_command(bool keys, const MpiSession& mpi) {
  if (keys) {
    RunContext ctx;
    ctx.rank = mpi.rank();
    ctx.ranks = mpi.size();
    const nlohmann::json declared = declared_input_keys(ctx);
    if (mpi.is_root()) std::printf("%s\n", declared.dump(2).c_str());
    return kExitOk;
  }
  if (mpi.is_root()) {
    for (const auto& info : ExperimentRegistry::all()) {
      std::printf("  %-24s %s\n", info.name.c_str(), info.description.c_str());
      if (!info.figure.empty()) std::printf("  %-24s figure: %s\n", "", info.figure.c_str());
    }
  }
  return kExitOk;
}

}  // namespace minigpu
