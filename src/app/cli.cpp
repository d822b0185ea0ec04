// Subcommands of `minigpu`, wired with CLI11.
#include "app/cli.hpp"

#include "app/ceilings_command.hpp"
#include "app/compare_command.hpp"
#include "app/data_paths.hpp"
#include "app/job_setup.hpp"
#include "app/list_command.hpp"
#include "app/model_command.hpp"
#include "app/report_command.hpp"
#include "app/resume_command.hpp"
#include "app/run_command.hpp"
#include "comm/mpi_session.hpp"
#include "config/config_node.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "engine/plan_loading.hpp"
#include "io/console_writer.hpp"
#include "io/device_report_writer.hpp"
#include "io/format.hpp"
#include "minigpu_version.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace minigpu {
namespace {

std::string version_text() {
  return std::string("minigpu ") + MINIGPU_VERSION + " (git " + MINIGPU_GIT_HASH + ", Kokkos " +
         kokkos_version_string() + " " + io::bracketed(kokkos_backends()) + ", " + gpu_backend_marker() +
         ")\n" + data_paths_text() + "\nmpi: " + mpi_library_version();
}

int devices_command(const MpiSession& mpi, const DeviceBinding& binding) {
  confirm_gpu_aware_mpi(comm::Communicator::world());
  const DeviceReport report = device_report();
  // Which GPU each rank took and by which rule, before any run depends on it.
  const auto ranks = gather_placements(binding, comm::Communicator::world());
  if (mpi.is_root()) {
    io::write_device_report(std::cout, report, mpi.size());
    io::ConsoleWriter(std::cout).rank_map(ranks);
  }
  return kExitOk;
}

// A path option given as "" (`--resume $dir` with dir unset) is a mistake, never "not given": an
// empty --resume would start a fresh run and an empty --output-dir write into the working directory.
const CLI::Validator kNotEmpty(
    [](const std::string& value) {
      return value.empty() ? std::string("is empty (an unset shell variable?)") : std::string();
    },
    "NOT EMPTY", "not empty");

}  // namespace

bool runs_without_ranks(int argc, char** argv) {
  // Under a launcher (Open MPI's, Hydra, srun's PMI or PMIx) the process is one rank of a job:
  // it joins it, so that rank 0 alone prints, as before.
  for (const char* launched : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"})
    if (std::getenv(launched) != nullptr) return false;
  std::string command;
  bool help_or_version = false, keys = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    // Kokkos options are Kokkos's to take (and strip): that needs Kokkos, so the usual path.
    if (word.rfind("--kokkos-", 0) == 0) return false;
    help_or_version = help_or_version || word == "-h" || word == "--help" || word == "--version";
    keys = keys || word == "--keys";
    if (command.empty() && !word.empty() && word[0] != '-') command = word;
  }
  if (command.empty()) return help_or_version;
  return command == "compare" || command == "report" || command == "model" || (command == "list" && !keys);
}

int run_cli(int argc, char** argv, const MpiSession& mpi, const DeviceBinding& binding) {
  CLI::App app{
      "miniGPU: the GPU chapter of Dive into Deep Learning as Kokkos + MPI experiments.\n"
      "Kokkos options (--kokkos-*) are passed through to Kokkos.",
      "minigpu"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  auto* devices =
      app.add_subcommand("devices", "Report devices, Kokkos backends and the chapter's device cells");
  auto* list = app.add_subcommand("list", "List the experiments with one-line descriptions");
  bool list_keys = false, list_json = false;
  list->add_flag("--keys", list_keys,
                 "Print every input key as JSON: type, default, bounds and choices, as the input is checked");
  list->add_flag("--json", list_json,
                 "Print every experiment as JSON: its question, figure and the findings it may report");
  auto* run = app.add_subcommand("run", "Run the experiments of a YAML input and write verified results");
  auto* ceilings = app.add_subcommand(
      "ceilings",
      "Measure this machine's reference rates (memcpy, triad, BLAS and GPU peaks) and cache them");
  bool cached = false;
  auto* cached_flag = ceilings->add_flag("--cached", cached,
                                         "Show the cached figures for this host and build if there are any");
  std::vector<std::string> only;
  ceilings
      ->add_option("--only", only,
                   "Measure only these figures (names as listed, comma-separated, e.g. host_triad) and print "
                   "them; the cache is left as it is")
      ->delimiter(',')
      ->excludes(cached_flag);
  RunOptions run_options;
  run->add_option("input", run_options.input, "YAML input file")->required()->check(kNotEmpty);
  run->add_option("--output-dir", run_options.output_dir, "Directory for results (overrides run.output_dir)")
      ->check(kNotEmpty);
  run->add_option("--only", run_options.only, "Run only these experiments (comma-separated)")->delimiter(',');
  run->add_flag("--dry-run", run_options.dry_run, "Validate the input and list its cases; run nothing");
  run->add_option("--resume", run_options.resume,
                  "A run directory of this input (e.g. interrupted): keep its finished cases, run the rest")
      ->check(kNotEmpty);
  run->add_flag("--plot", run_options.plot, "Draw the figures (scripts/plot.py) into the results directory");
  run->add_option(
         "--set", run_options.overrides,
         "PATH=VALUE: change an input key, e.g. run.repetitions=5, experiments.matmul.sizes=[64,128] "
         "(also experiments[I].KEY, experiments.*.KEY); repeatable")
      ->allow_extra_args(false);  // one PATH=VALUE per --set: the input may follow
  // Shortcuts: every case's count, whatever the run: section or an experiment entry says.
  std::string repetitions, warmups;
  run->add_option("--repetitions", repetitions, "Timed repetitions of every case (--set for one experiment)");
  run->add_option("--warmups", warmups, "Untimed warm-ups of every case");
  run->add_option("--case-timeout", run_options.case_timeout_s,
                  "Seconds any case may go without progress before the job ends with exit 4, naming the "
                  "stopped rank (over every case_timeout of the input)")
      ->check(CLI::PositiveNumber);

  auto* model = app.add_subcommand(
      "model",
      "Predict matmul_scaling's speedup and efficiency on 1..512 GPUs (α–β–γ model, not a measurement)");
  ModelOptions model_options;
  model
      ->add_option("--from", model_options.from, "A run directory whose run.json has a scaling_model section")
      ->check(kNotEmpty);
  model->add_option("--profile", model_options.profile, "A YAML hardware profile (inputs/hardware/)");
  model->add_option("--n", model_options.n, "Matrix size (strong: fixed; weak: at p=1)")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000}));
  model
      ->add_option("--gpus-per-node", model_options.gpus_per_node,
                   "GPUs (ranks) per node; default: the input's")
      ->check(CLI::Range(1, 1 << 20));
  model->add_option("--dtype", model_options.dtype, "Element type")
      ->capture_default_str()
      ->check(CLI::IsMember({"float32", "float64"}));
  model->add_option("--max-p", model_options.max_p, "Largest GPU count of the sweep 1, 2, 4, ...")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 16));
  model->add_option("--mode", model_options.mode, "Strong scaling (n fixed), weak (n grows as ∛p) or both")
      ->capture_default_str()
      ->check(CLI::IsMember({"strong", "weak", "both"}));
  model->add_option("--plot", model_options.plot,
                    "Draw the efficiency curves into this PNG (scripts/plot_model.py)");

  auto* compare = app.add_subcommand(
      "compare",
      "Compare two runs, or a run against a reference file, case by case: time ratios, intervals, verdicts");
  CompareOptions compare_options;
  compare->add_option("A", compare_options.baseline, "Baseline run directory, run.json or reference file")
      ->required();
  compare->add_option("B", compare_options.candidate, "Candidate run: its time over A's is each row's ratio");
  compare->add_option("--reference", compare_options.reference,
                      "A reference file (inputs/references/) as the baseline; A is then the candidate");
  compare
      ->add_option(
          "--fail-below", compare_options.fail_below,
          "Exit 1 when a case runs below (100 - PCT) % of the baseline's speed beyond noise, or fails "
          "verification")
      ->check(CLI::Range(0.0, 99.9));
  compare->add_option("--json", compare_options.json, "Write the comparison as JSON to FILE ('-': stdout)");
  compare->add_option("--csv", compare_options.csv, "Write one CSV row per case to FILE ('-': stdout)");
  auto* report = app.add_subcommand(
      "report", "Write RUN_DIR/report.html: figures, findings, rows, rank map and provenance on one page");
  std::vector<std::string> report_dirs;
  report->add_option("run_dir", report_dirs, "Run directories (run.json, results.csv): a page in each")
      ->required();

  // CLI11 says "A subcommand is required" for a misspelt one: name it and the real ones.
  std::vector<std::string> names;
  for (const auto* c : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(c->get_name());
  const std::string commands = "(commands: " + io::joined(names, ", ") + ")";
  bool named = false;
  for (int i = 1; i < argc && !named; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    if (std::find(names.begin(), names.end(), word) == names.end()) {
      throw InputError("unknown command '" + shown(word) + "' " + commands);
    }
    named = true;
  }
  const bool asks_for_help_or_version = [&] {
    for (int i = 1; i < argc; ++i) {
      const std::string word = argv[i];
      if (word == "-h" || word == "--help" || word == "--version") return true;
    }
    return false;
  }();
  if (!named && !asks_for_help_or_version) throw InputError("no command given " + commands + "; try --help");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A real parse error is one line like every other usage error (CLI11 adds a second).
    if (e.get_exit_code() != 0) throw InputError(std::string(e.what()) + " (try --help)");
    // Help and version are "errors" with exit code 0 in CLI11; only rank 0 prints.
    std::ostringstream out, err;
    const int code = app.exit(e, out, err);
    if (mpi.is_root()) {
      std::cout << out.str();
      std::cerr << err.str();
    }
    return code == 0 ? kExitOk : kExitBadInput;
  }
  if (devices->parsed()) return devices_command(mpi, binding);
  if (list->parsed()) return list_command(list_keys, list_json, mpi);
  if (ceilings->parsed()) return ceilings_command(cached, only, mpi);
  // A name that is no file here may be one of the example inputs shipped with the binary.
  const auto example = [&](std::string& path) {
    const std::string found = resolve_input(path);
    if (found != path && mpi.is_root()) std::cerr << "minigpu: note: " << path << ": using " << found << '\n';
    path = found;
  };
  if (model->parsed()) {
    if (!model_options.profile.empty()) example(model_options.profile);
    return model_command(model_options, mpi);
  }
  if (compare->parsed()) return compare_command(compare_options, mpi);
  if (report->parsed()) return report_command(report_dirs, mpi);
  if (run->parsed()) {
    example(run_options.input);
    for (const auto& [key, value] :
         {std::pair{"repetitions", &repetitions}, std::pair{"warmups", &warmups}}) {
      if (value->empty()) continue;
      run_options.overrides.push_back(std::string("run.") + key + "=" + *value);
      run_options.overrides.push_back(std::string("experiments.*.") + key + "=" + *value);
    }
    run_options.command = resume_command(argc, argv, mpi.size());
    return run_command(run_options, mpi, binding);
  }
  throw InputError("no subcommand given (try --help)");
}

}  // namespace minigpu
