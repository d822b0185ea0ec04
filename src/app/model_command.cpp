// `minigpu model`: the model's tables (strong and weak scaling) and, if asked, their figure.
#include "app/model_command.hpp"

#include "app/data_paths.hpp"
#include "app/python_script.hpp"
#include "core/errors.hpp"
#include "distributed/model_inputs.hpp"
#include "distributed/scaling_model.hpp"
#include "io/format.hpp"
#include "kernels/block_partition.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace minigpu {
namespace {

using perfmodel::load_hardware_profile;
using perfmodel::load_run_scaling_model;
using perfmodel::ModelInputs;
using perfmodel::Sourced;

constexpr int kDefaultPanelWidth = 256;
constexpr std::array<const char*, 4> kAlgorithms = {"row", "summa", "summa_overlap", "2.5d_bound"};
using Estimates = std::array<perfmodel::Estimate, kAlgorithms.size()>;

struct Point {
  int p = 1, nodes = 1;
  kernels::ProcessGrid grid;
  std::int64_t n = 0;
  Estimates estimates;
};

struct Table {
  bool weak = false;
  std::vector<Point> points;  // points[0] is p = 1, every algorithm's baseline
  double efficiency(const Point& at, std::size_t a) const {
    const double t1 = points.front().estimates[a].total_s, tp = at.estimates[a].total_s;
    return 100 * t1 / (weak ? tp : at.p * tp);
  }
};

// 1, 2, 4, … up to max_p, and max_p itself.
std::vector<int> sweep(int max_p) {
  std::vector<int> out;
  for (int p = 1; p <= max_p; p *= 2) out.push_back(p);
  if (out.back() != max_p) out.push_back(max_p);
  return out;
}

Table build_table(const perfmodel::Machine& m, std::int64_t n, int max_p, bool weak, std::size_t elem,
                  std::int64_t width) {
  Table t;
  t.weak = weak;
  for (int p : sweep(max_p)) {
    Point at;
    at.p = p;
    at.nodes = (p + m.gpus_per_node - 1) / m.gpus_per_node;
    at.grid = kernels::square_grid(p);  // as matmul_scaling picks it
    at.n = weak ? std::llround(static_cast<double>(n) * std::cbrt(static_cast<double>(p))) : n;
    const auto widths = kernels::summa_panel_widths(at.n, at.grid.rows, at.grid.cols, width);
    at.estimates = {perfmodel::estimate_row(m, at.n, p, elem),
                    perfmodel::estimate_summa(m, at.n, at.grid.rows, at.grid.cols, widths, false, elem),
                    perfmodel::estimate_summa(m, at.n, at.grid.rows, at.grid.cols, widths, true, elem),
                    perfmodel::estimate_25d_bound(m, at.n, p, elem)};
    t.points.push_back(at);
  }
  return t;
}

std::string right(const std::string& text, std::size_t width) {
  return text.size() >= width ? " " + text : std::string(width - text.size(), ' ') + text;
}

// One row per p; columns "<algorithm>_x" (speedup, strong only) and "<algorithm>_%".
void print_table(std::ostream& out, const Table& t, const std::string& what) {
  constexpr std::size_t kColumn = 17;
  out << '\n' << what << '\n' << right("p", 6) << right("nodes", 7) << right("grid", 9);
  if (t.weak) out << right("n_p", 10);
  for (const std::string a : kAlgorithms)
    out << (t.weak ? "" : right(a + "_x", kColumn)) << right(a + "_%", kColumn);
  out << '\n';
  for (const Point& at : t.points) {
    out << right(std::to_string(at.p), 6) << right(std::to_string(at.nodes), 7)
        << right(std::to_string(at.grid.rows) + "x" + std::to_string(at.grid.cols), 9);
    if (t.weak) out << right(std::to_string(at.n), 10);
    for (std::size_t a = 0; a < kAlgorithms.size(); ++a) {
      const double e = t.efficiency(at, a);
      if (!t.weak) out << right(io::significant(e * at.p / 100, 4), kColumn);
      out << right(io::significant(e, 4), kColumn);
    }
    out << '\n';
  }
}

std::string link_text(const perfmodel::Link& l) {
  return "α = " + io::significant(l.alpha_s * 1e6, 3) + " µs, " +
         io::significant(1e-9 / l.beta_s_per_byte, 3) + " GB/s (" + l.source + ")";
}

// The first line says plainly what these figures are and where their inputs come from.
std::vector<std::string> header(const ModelInputs& in, const ModelOptions& o, const perfmodel::Machine& m,
                                std::int64_t width) {
  std::string first = "model figures, not measurements: the α–β–γ model of src/distributed, inputs from " +
                      in.origin + (in.name.empty() ? "" : " (" + in.name + ")");
  if (!in.inter_node_known)
    first += "; no inter-node link in the run: the intra-node figures stand in for it";
  const Sourced& rate = in.gemm_flops_per_s.at(o.dtype);
  return {first,
          "  GEMM " + o.dtype + ": " + io::significant(rate.value / 1e12, 3) + " TFLOP/s per GPU (" +
              rate.source + ")",
          "  intra-node link: " + link_text(m.intra_node),
          "  inter-node link: " + (in.inter_node_known ? link_text(m.inter_node) : "as intra-node"),
          "  " + std::to_string(m.gpus_per_node) + " GPUs per node (" +
              (o.gpus_per_node ? "--gpus-per-node" : in.gpus_per_node.source) +
              "); SUMMA on the squarest grid, " + "panels at most " + std::to_string(width) + " wide (" +
              (in.panel_width ? in.panel_width->source : "default") + ")"};
}

nlohmann::json table_json(const Table& t, const std::string& title) {
  nlohmann::json j = {{"mode", t.weak ? "weak" : "strong"}, {"title", title}};
  for (const Point& at : t.points) {
    j["p"].push_back(at.p);
    for (std::size_t a = 0; a < kAlgorithms.size(); ++a)
      j["efficiency"][kAlgorithms[a]].push_back(t.efficiency(at, a));
  }
  return j;
}

// scripts/plot_model.py draws what this command computed: it reads the tables, not the model.
bool plot(const nlohmann::json& figure, const std::string& png) {
  const auto data =
      std::filesystem::temp_directory_path() / ("minigpu_model_" + std::to_string(getpid()) + ".json");
  std::ofstream(data) << figure.dump();
  const bool ok = run_python_script(data_paths().scripts / "plot_model.py", {data.string(), png}) == 0;
  std::error_code ec;
  std::filesystem::remove(data, ec);
  return ok;
}

}  // namespace

int model_command(const ModelOptions& o, const MpiSession& mpi) {
  if (o.from.empty() == o.profile.empty())
    throw InputError("model: give exactly one of --from RUN_DIR and --profile FILE");
  const ModelInputs in = o.from.empty() ? load_hardware_profile(o.profile) : load_run_scaling_model(o.from);
  const auto rate = in.gemm_flops_per_s.find(o.dtype);
  if (rate == in.gemm_flops_per_s.end())
    throw InputError(in.origin + ": key '" + in.gemm_key + "." + o.dtype +
                     "': missing, and --dtype asks for " + o.dtype);
  // Every rank (every process row and column) needs a row at every p, as matmul_scaling demands:
  // n_p = n·∛p ≥ p wherever it holds at max_p; "both" is bound by its strong table.
  const double rows_at_max_p =
      o.mode == "weak" ? std::round(static_cast<double>(o.n) * std::cbrt(o.max_p)) : static_cast<double>(o.n);
  if (rows_at_max_p < o.max_p)
    throw InputError("--n: " + std::to_string(o.n) + " leaves fewer rows than --max-p " +
                     std::to_string(o.max_p) + " ranks" +
                     (o.mode == "strong" ? "" : " (weak: n_p = round(n·∛p))") + ": every rank needs a row");
  perfmodel::Machine m;
  m.intra_node = in.intra_node;
  m.inter_node = in.inter_node;
  m.gpus_per_node = o.gpus_per_node ? *o.gpus_per_node : static_cast<int>(in.gpus_per_node.value);
  m.gemm_seconds = perfmodel::constant_rate(rate->second.value);
  const std::int64_t width =
      in.panel_width ? static_cast<std::int64_t>(in.panel_width->value) : kDefaultPanelWidth;
  const std::size_t elem = o.dtype == "float64" ? 8 : 4;
  if (!mpi.is_root()) return kExitOk;  // the model is arithmetic: rank 0 alone prints it

  const auto lines = header(in, o, m, width);
  for (const auto& line : lines) std::cout << line << '\n';
  nlohmann::json figure = {{"title", lines.front()},
                           {"details", std::vector<std::string>(lines.begin() + 1, lines.end())}};
  for (const bool weak : {false, true}) {
    if (o.mode != "both" && (o.mode == "weak") != weak) continue;
    const Table t = build_table(m, o.n, o.max_p, weak, elem, width);
    const std::string what = weak ? "weak scaling: n_p = round(" + std::to_string(o.n) +
                                        "·∛p), work per GPU fixed; efficiency t1/tp, " + o.dtype
                                  : "strong scaling: n = " + std::to_string(o.n) + ", " + o.dtype +
                                        "; speedup t1/tp, efficiency t1/(p·tp)";
    print_table(std::cout, t, what);
    figure["tables"].push_back(table_json(t, what));
  }
  std::cout.flush();
  if (!o.plot.empty()) {
    if (!plot(figure, o.plot)) {
      std::cerr << "minigpu: error: scripts/plot_model.py failed to write " << o.plot << '\n';
      return kExitRuntimeError;
    }
    std::cout << "figure: " << o.plot << '\n';
  }
  return kExitOk;
}

}  // namespace minigpu
