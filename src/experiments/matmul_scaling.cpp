// matmul_scaling: one distributed C = A·B (n×n) over the first p ranks of the job, for every p
// of a sweep inside ONE MPI job, each rank computing on its own `device` (default try_gpu()).
// Ranks >= p sit the case out. Algorithms (distributed/distributed_matmul.hpp says how each
// moves its data), per repetition:
//   row        allgather B's row blocks ("comm"), then the rank's rows of C ("compute")
//   summa      per panel of k, broadcasts along process rows and columns, then the local update;
//              overlapped by default, so "comm" is only the exposed part; `summa_blocking` rows
//              wait for each panel's broadcasts first
//   scalapack  ScaLAPACK's PxGEMM, nb = `block_size`, host memory only: the library a user would
//              otherwise call, timed whole as "compute" (its messages travel inside one call)
// Local products run `kernel` (auto: the one measured faster at a rank's share on the most
// ranks). mode strong keeps n fixed: speedup t1/tp, efficiency t1/(p·tp); mode weak grows n with
// ∛p so work per rank stays fixed: efficiency t1/tp. Messages go `staged` through host memory or
// `direct` from device memory (gpu_aware_mpi).
// Accounting per repetition: flops = 2n³ for the whole product, so GFLOP/s is the aggregate over
// the p ranks; bytes = elements received over MPI by all ranks together × sizeof(T)
// (received_elements: (p-1)·n² for row, (pr-1 + pc-1)·n² for summa and scalapack, 0 at p = 1).
// Model: each row's model_s is the α–β–γ estimate (distributed/scaling_model.hpp) from α, β and
// γ measured in this run (distributed/calibration.hpp, which says how scalapack is modelled);
// model_error_pct = 100·(model − measured)/measured. Without panel_width the model picks it.
// Check: C·v against A·(B·v) for a deterministic v, each rank its share, summed over the p
// ranks; for n <= 64 also all of C on rank 0 against a host triple loop. Entries are small
// integers, so C is exact in either dtype.
#include "ceilings/ceilings.hpp"
#include "config/common_keys.hpp"
#include "distributed/calibration.hpp"
#include "distributed/distributed_matmul.hpp"
#include "distributed/scalapack_matmul.hpp"
#include "engine/case_grid.hpp"
#include "engine/comm_keys.hpp"
#include "engine/findings.hpp"
#include "engine/registry.hpp"
#include "io/format.hpp"
#include "kernels/matmul_check.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

namespace minigpu {
namespace {

using perfmodel::kWidestModelPanel;
using perfmodel::ModelledProduct;
using perfmodel::ScalingModel;

constexpr std::int64_t kExactCheckMaxScalingN = 64;
const Names<Decomposition> kDecompositions = {
    {"row", Decomposition::row}, {"summa", Decomposition::summa}, {"scalapack", Decomposition::scalapack}};

class MatmulScalingExperiment : public CaseList<ScalingCase>, public Analysis {
 public:
  void configure(ConfigNode& node, const RunContext& ctx) override {
    ctx_ = ctx;
    weak_ = node.get_choice("mode", {"strong", "weak"}, "strong") == "weak";
    n_ = node.get_int("n", 512, 1, kMaxScalingN);
    ranks_ = read_rank_sweep(node, ctx.ranks());
    for (std::int64_t p : ranks_) {
      if (const std::string why = scaling_size_refusal(size_for(p), p, weak_); !why.empty())
        node.fail("n", why);
    }
    const auto decompositions = node.get_named_list("decompositions", kDecompositions, {"row", "summa"});
    block_size_ = node.get_int("block_size", kScalapackDefaultBlock, 1, kMaxScalingN);
    dtypes_ = read_dtypes(node, ctx.default_dtype);
    const auto overlaps = node.get_named<std::vector<bool>>(
        "overlap", {{"true", {true}}, {"false", {false}}, {"both", {false, true}}}, "true");
    panel_width_ = node.get_int("panel_width", 0, 0, kMaxScalingN);
    node.default_from(
        "panel_width",
        "0: the width of 64 … 1024 that the α–β–γ model, calibrated in the same run, predicts fastest");
    grid_.reset();
    if (const auto g =
            read_process_grid(node, ranks_, ctx.ranks(), "the squarest pr×pc factorisation of each p"))
      grid_ = kernels::ProcessGrid{g->first, g->second};
    device_ = read_device(node);
    const GemmChoice choice = read_gemm_kernel(node, kernels::vendor_gemm_refusal(device_, "native"));
    if (std::count(decompositions.begin(), decompositions.end(), Decomposition::scalapack)) {
      if (const std::string why = scalapack_refusal(device_); !why.empty()) node.fail("decompositions", why);
    }
    path_ = read_comm_path(node, device_);
    // A schedule is a decomposition and, for summa, whether it overlaps: a case at p = 1.
    schedules_.clear();
    for (Decomposition d : decompositions) {
      for (bool overlapped : d == Decomposition::summa ? overlaps : std::vector<bool>{false})
        schedules_.push_back({d, 1, 0, {}, SummaOptions{panel_width_, overlapped, {}}});
    }
    const NativePreference prefer = overlapped_summa_preference(device_, schedules_, ranks_);
    for (DType dt : dtypes_)
      picks_[dt] = ctx.pick_gemm(choice, device_, dt, n_ / ranks_.back(), n_, n_, "", prefer);
    for_each_combination(
        [&](DType dt, const ScalingCase& s, std::int64_t p) { add_scaling_case(case_at(s, p), dt); }, dtypes_,
        schedules_, ranks_);
    curves_.clear();  // each group's model at p = 1, 2, 4, … 64: plots extend it past the sweep
    for_each_combination(
        [&](DType dt, const ScalingCase& s) {
          curves_[algorithm_name(s) + "_" + to_string(dt)] = [=](int p) {
            return perfmodel::modelled_product(case_at(s, p), dt, panel_width_, block_size_);
          };
        },
        dtypes_, schedules_);
  }

  void setup(const CaseSpec& spec) override {
    resumed(spec);  // the model's half
    // Collective over the job: ranks >= p get a null communicator and idle through the case.
    sub_ = ctx_.comm.split(ctx_.rank() < case_.p ? 0 : comm::kNoColour, ctx_.rank());
    if (!sub_.is_null() && case_.decomposition == Decomposition::scalapack) {
      engine_ = make_scalapack_matmul(dtype_, spec.device, sub_, case_.n, case_.grid, block_size_);
    } else if (!sub_.is_null()) {
      engine_ = make_distributed_matmul(case_.decomposition, dtype_, spec.device, sub_, case_.n, case_.grid,
                                        path_, picks_.at(dtype_).kernel, case_.summa);
    }
  }

  // setup()'s model half, all a carried-over row needs (without it no model_s, nor a
  // scaling_model in a run of such rows alone). Collective: every rank, in case order.
  void resumed(const CaseSpec& spec) override {
    dtype_ = spec.dtype;
    case_ = case_of(spec);
    model_.calibrate(ctx_.comm, device_, path_, picks_, ctx_.calibration.get(), curves_);  // once, every rank
    const ModelledProduct modelled = perfmodel::modelled_product(case_, dtype_, panel_width_, block_size_);
    case_.summa.max_panel = model_.agree_panel(ctx_.comm, spec.index, modelled, ctx_.rank() < case_.p);
  }

  void run_once() override {
    if (engine_) {
      engine_->multiply([this](const char* phase) { end_phase(phase); });
    } else {  // every rank must report the same phases, in the same order
      end_phase("comm");
      end_phase("compute");
    }
  }

  Check verify() override {
    if (!engine_)
      return {true, "idle: rank " + std::to_string(ctx_.rank()) + " is not among the first " +
                        std::to_string(case_.p)};
    Check check = tolerance_check("|Cv-A(Bv)|/|A(Bv)| = ", engine_->identity_error(),
                                  kernels::matmul_identity_tolerance(dtype_, case_.n));
    if (case_.n <= kExactCheckMaxScalingN) {
      const auto c = engine_->gather_c();
      if (!c.empty()) check.also(exact_match_check(host_product_mismatches(c, case_.n), "host triple loop"));
    }
    return check;
  }

  void teardown() override {
    engine_.reset();
    sub_ = comm::Communicator();
  }

  void annotate(std::vector<CaseResult>& results) const override;
  std::vector<Finding> findings(const std::vector<CaseResult>& results) const override;
  std::pair<std::string, nlohmann::json> run_record_section() const override;

 private:
  void add_scaling_case(const ScalingCase& sc, DType dt) {
    const Decomposition d = sc.decomposition;
    const bool summa = d == Decomposition::summa, sl = d == Decomposition::scalapack;  // sl: its own BLAS
    const std::string kernel = to_string(sl ? GemmKernel::vendor : picks_.at(dt).kernel);
    CaseSpec c = case_spec(algorithm_name(sc) + " p=" + std::to_string(sc.p) + " n=" + std::to_string(sc.n) +
                               " " + (sl ? "nb=" + std::to_string(block_size_) : kernel),
                           {{"mode", weak_ ? "weak" : "strong"},
                            {"decomposition", name_of(kDecompositions, d)},
                            {"ranks", sc.p},
                            {"n", sc.n},
                            {"grid", sc.grid.text()},
                            {"comm_path", comm::to_string(sl ? comm::CommPath::direct : path_)},
                            {"kernel", kernel},
                            {"kernel_choice", sl ? "ScaLAPACK's own BLAS" : picks_.at(dt).why},
                            {"overlap", sc.summa.overlap ? "true" : "false"},
                            {"panel_width", !summa             ? ""
                                            : panel_width_ > 0 ? std::to_string(panel_width_)
                                                               : "auto"}},
                           device_, dt, gemm_ceiling(device_, dt), "n");
    if (sl) c.params.emplace_back("block_size", std::to_string(block_size_));
    if (!sl) c.peak = gemm_peak(device_, dt, picks_.at(dt).kernel);
    c.ceiling_scale = sc.p;  // p ranks, each bounded by one device's
    c.this_rank_works = ctx_.rank() < sc.p;
    c.work = {received_elements(d, sc.n, sc.grid) * static_cast<double>(size_of(dt)),
              gemm_flops(sc.n, sc.n, sc.n)};
    c.flops_estimate = c.work.flops / sc.p;
    const SummaOptions widest{panel_width_ > 0 ? panel_width_ : kWidestModelPanel, sc.summa.overlap, {}};
    c.device_bytes =
        sl ? scalapack_bytes_per_rank(sc.n, sc.grid, block_size_, size_of(dt))
           : device_bytes_per_rank(d, sc.n, sc.grid, size_of(dt),
                                   path_ == comm::CommPath::staged && uses_host_memory(device_), widest);
    add_case(c, sc);
  }

  /// The case of `schedule` (its decomposition and overlap) on p ranks.
  ScalingCase case_at(const ScalingCase& schedule, std::int64_t p) const {
    const Decomposition d = schedule.decomposition;
    return {d, static_cast<int>(p), size_for(p), grid_for(d, static_cast<int>(p)),
            SummaOptions{panel_width_, schedule.summa.overlap, {}}};
  }
  std::int64_t size_for(std::int64_t p) const {
    return weak_ ? std::llround(static_cast<double>(n_) * std::cbrt(static_cast<double>(p))) : n_;
  }
  // The input's grid where it fits p (every case's p; model curves reach others), else the squarest.
  kernels::ProcessGrid grid_for(Decomposition d, int p) const {
    if (d == Decomposition::row) return {p, 1};
    return grid_ && grid_->rows * grid_->cols == p ? *grid_ : kernels::square_grid(p);
  }

  RunContext ctx_;
  bool weak_ = false;
  std::int64_t n_ = 0;
  std::vector<std::int64_t> ranks_;
  std::vector<ScalingCase> schedules_;
  std::int64_t panel_width_ = 0;
  std::int64_t block_size_ = kScalapackDefaultBlock;
  std::vector<DType> dtypes_;
  std::optional<kernels::ProcessGrid> grid_;
  Device device_;
  comm::CommPath path_ = comm::CommPath::staged;

  DType dtype_ = DType::f32;
  ScalingCase case_;
  comm::Communicator sub_;
  std::unique_ptr<DistributedMatmul> engine_;
  std::map<DType, GemmPick> picks_;  // the local products' kernel per dtype

  ScalingModel model_;
  perfmodel::ModelCurves curves_;
};

// comm_exposed_s: the median time a rank spent in communication it could not hide ("comm").
// comm_s: the whole communication; blocking rows expose all of it, an overlapped row takes
// it from its blocking twin (same dtype, p and n) when the job ran one (overlap: both).
void MatmulScalingExperiment::annotate(std::vector<CaseResult>& results) const {
  const auto twin = [&](const CaseResult& r) {
    const ScalingCase& c = case_of(r.spec);
    return std::tuple(r.spec.dtype, c.p, c.n);
  };
  const auto by_schedule =
      rows_by_mode(results, twin, [&](const CaseResult& r) { return algorithm_name(case_of(r.spec)); });
  for (auto& r : results) {
    const ScalingCase& c = case_of(r.spec);
    const auto exposed = r.phase_median("comm");
    std::optional<double> whole = exposed;
    if (c.decomposition == Decomposition::summa && c.summa.overlap) {
      const CaseResult* blocking = row_of(by_schedule.at(twin(r)), std::string("summa_blocking"));
      whole = blocking ? blocking->phase_median("comm") : std::nullopt;
    }
    r.values = {{"comm_s", whole}, {"comm_exposed_s", exposed}};
    model_.annotate(r, c.decomposition == Decomposition::summa);
  }
  perfmodel::hold_at_ideal(results,
                           [&](const CaseResult& r) -> const ScalingCase& { return case_of(r.spec); });
}

std::pair<std::string, nlohmann::json> MatmulScalingExperiment::run_record_section() const {
  if (auto record = model_.record(); !record.is_null()) return {"scaling_model", std::move(record)};
  return {};
}

std::vector<Finding> MatmulScalingExperiment::findings(const std::vector<CaseResult>& results) const {
  // Per dtype and decomposition, the cases by p; the smallest p (1 unless `ranks` omits it)
  // is the baseline.
  const auto groups = rows_by_mode(
      results,
      [&](const CaseResult& r) { return algorithm_name(case_of(r.spec)) + "_" + to_string(r.spec.dtype); },
      [&](const CaseResult& r) { return case_of(r.spec).p; });
  std::vector<Finding> out;
  for (const auto& [group, by_p] : groups) {
    const int p1 = by_p.begin()->first;
    const CaseResult& base = *by_p.begin()->second;
    const double t1 = base.seconds.median;
    const std::string ref = "p=" + std::to_string(p1);
    for (const auto& [p, r] : by_p) {
      const double tp = r->seconds.median;
      const std::string suffix = group + "_p" + std::to_string(p);
      const ScalingCase& c = case_of(r->spec);
      // miniGPU's (overlapped) SUMMA against ScaLAPACK at the same dtype and p: below 1 the
      // mini-app beats the library a user would otherwise call.
      const std::string dtype = to_string(r->spec.dtype);
      const auto lib = groups.find("scalapack_" + dtype);
      if (group == "summa_" + dtype && lib != groups.end() && lib->second.count(p)) {
        const CaseResult& s = *lib->second.at(p);
        out.push_back(ratio_finding("summa_over_scalapack_" + dtype + "_p" + std::to_string(p), *r, s,
                                    "t(summa)/t(scalapack PxGEMM, nb=" + s.spec.param("block_size") +
                                        "), n=" + s.spec.param("n") + ", grid " + s.spec.param("grid")));
      }
      const std::string where =
          "n=" + std::to_string(c.n) + ", grid " + c.grid.text() + ", " + comm::to_string(path_);
      if (tp <= 0 || t1 <= 0) continue;
      // The baseline against itself (speedup 1, efficiency 100 %) says nothing.
      const bool baseline = p == p1;
      if (!baseline && weak_) {
        out.push_back(perfmodel::with_model_figure(
            efficiency_finding("efficiency_" + suffix, base, *r, 1,
                               "weak: t(" + ref + ", n=" + std::to_string(case_of(base.spec).n) +
                                   ")/t(p=" + std::to_string(p) + ", " + where + ")"),
            base, *r, 1));
      } else if (!baseline) {
        const double work_ratio = static_cast<double>(p1) / p;
        const auto [speedup, efficiency] = speedup_and_efficiency(
            suffix, base, *r, work_ratio, "strong: t(" + ref + ")/t(p=" + std::to_string(p) + "), " + where,
            "strong: " + std::to_string(p1) + "·t(" + ref + ")/(" + std::to_string(p) +
                "·t(p=" + std::to_string(p) + "))");
        out.push_back(speedup);
        out.push_back(perfmodel::with_model_figure(efficiency, base, *r, work_ratio));
      }
      const double comm = r->phase_median("comm").value_or(0),
                   compute = r->phase_median("compute").value_or(0);
      // scalapack's messages travel inside its one call: it has no split to report.
      if (comm + compute > 0 && c.decomposition != Decomposition::scalapack) {
        out.push_back(row_finding("comm_fraction_" + suffix, 100 * comm / (comm + compute), "%", *r,
                                  "median comm " + io::significant(comm, 2) + " s, compute " +
                                      io::significant(compute, 2) + " s (slowest rank per phase)"));
      }
    }
  }
  return out;
}

}  // namespace

MINIGPU_REGISTER_EXPERIMENT(
    MatmulScalingExperiment,
    {"matmul_scaling",
     "Distributed C = A·B over 1..P ranks (row blocks, SUMMA): speedup and efficiency",
     "multi-GPU matmul across MPI ranks",
     "scaling.png",
     {{"speedup_<decomposition>_<dtype>_p<p>", "x", "strong scaling: t(fewest ranks) / t(p ranks)"},
      {"efficiency_<decomposition>_<dtype>_p<p>", "%",
       "parallel efficiency against the fewest ranks of the sweep (strong or weak), with its 95 % interval "
       "and the model's figure"},
      {"comm_fraction_<decomposition>_<dtype>_p<p>", "%", "communication's share of comm + compute time"},
      {"summa_over_scalapack_<dtype>_p<p>", "x", "t(SUMMA) / t(ScaLAPACK's PxGEMM) at the same n and p"}},
     "n: 12, block_size: 4, decompositions: [row, summa, scalapack], overlap: both, dtypes: [float64], "
     "device: cpu"});

}  // namespace minigpu
