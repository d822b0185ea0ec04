// matmul_scaling: one distributed C = A·B (n×n) over the first p ranks of the job, for every p
// of a sweep inside ONE MPI job, each rank computing on its own `device` (default try_gpu()). Ranks >= p
// sit the case out. Algorithms (distributed/distributed_matmul.hpp), per repetition:
//   row    allgather B's row blocks (comm), then C_r = A_r·B over the rank's rows (compute)
//   summa  on a pr×pc grid, per panel of k: broadcast A(I, panel) along process rows and
//          B(panel, J) down process columns (comm), then C_IJ += A(I, panel)·B(panel, J) (compute)
//   scalapack  ScaLAPACK's PSGEMM/PDGEMM on a BLACS grid shaped like summa's, nb×nb blocks
//          (`block_size`) dealt 2-D block-cyclically, host memory only: the library a user
//          would otherwise call, timed whole as compute (it interleaves comm inside one call)
// The local products run `kernel`: vendor (the BLAS, default) or native (kernels/gemm.hpp).
// mode strong keeps n fixed: speedup t1/tp, efficiency t1/(p·tp); mode weak grows n with
// ∛p so work per rank stays fixed: efficiency t1/tp. Messages go `staged` through host
// memory or `direct` from device memory (gpu_aware_mpi).
// Accounting per repetition: flops = 2n³ for the whole product, the same on every rank, so
// GFLOP/s is the aggregate over the p ranks; bytes = elements received over MPI by all ranks
// together × sizeof(T): (p-1)·n² for row, (pr-1 + pc-1)·n² for summa, 0 at p = 1; scalapack
// is counted as summa (PBLAS broadcasts the same A and B panels for square operands).
// Check: C·v against A·(B·v) for a deterministic v, A and B taken from their formulas, each
// rank its share, summed over the p ranks; for n <= 64 also all of C on rank 0 against a host
// triple loop. Entries are small integers, so C is exact in either dtype.
#include "ceilings/ceilings.hpp"
#include "comm/gpu_aware.hpp"
#include "config/common_keys.hpp"
#include "distributed/distributed_matmul.hpp"
#include "distributed/scalapack_matmul.hpp"
#include "experiments/registry.hpp"
#include "io/format.hpp"
#include "kernels/matmul_check.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>

namespace minigpu {
namespace {

constexpr std::int64_t kMaxN = 46340;  // n² elements must fit MPI's int message counts
constexpr std::int64_t kExactCheckMaxN = 64;

const char* name_of(Decomposition d) {
  return d == Decomposition::row ? "row" : d == Decomposition::summa ? "summa" : "scalapack";
}

std::string grid_text(kernels::ProcessGrid g) {
  return std::to_string(g.rows) + "x" + std::to_string(g.cols);
}

// 1, 2, 4, ... up to the job's size, and the size itself.
std::vector<std::int64_t> default_ranks(int job_size) {
  std::vector<std::int64_t> out;
  for (std::int64_t p = 1; p <= job_size; p *= 2) out.push_back(p);
  if (out.back() != job_size) out.push_back(job_size);
  return out;
}

// While every partial sum of C fits T's mantissa (|sum| <= 4n for entries in [-2, 2]) C is
// exact and only the check's double matvecs round; beyond that T's own rounding counts.
double identity_tolerance(DType dtype, std::int64_t n) {
  return with_dtype(
      dtype, [&](auto type) { return kernels::matmul_identity_tolerance<typename decltype(type)::type>(n); });
}

// Entries of C (row-major, n×n) that differ from a host triple loop over A's and B's formulas.
std::int64_t host_mismatches(const std::vector<double>& c, std::int64_t n) {
  const auto a = kernels::small_integer_matrix(kSeedA, n), b = kernels::small_integer_matrix(kSeedB, n);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (std::int64_t p = 0; p < n; ++p) acc += a(i, p) * b(p, j);
      wrong += c[i * n + j] != acc ? 1 : 0;
    }
  }
  return wrong;
}

using ByGroupAndP = std::map<std::string, std::map<int, const CaseResult*>>;

// miniGPU's SUMMA against ScaLAPACK at the same dtype and p (so the same n and grid): below 1
// the mini-app beats the library a user would otherwise call.
void add_summa_over_scalapack(const ByGroupAndP& groups, std::vector<Finding>& out) {
  for (const auto& [group, by_p] : groups) {
    if (group.rfind("summa_", 0) != 0) continue;
    const std::string dtype = group.substr(6);
    const auto lib = groups.find("scalapack_" + dtype);
    if (lib == groups.end()) continue;
    for (const auto& [p, summa] : by_p) {
      const auto other = lib->second.find(p);
      if (other == lib->second.end()) continue;
      const CaseResult& s = *other->second;
      out.push_back(ratio_finding("summa_over_scalapack_" + dtype + "_p" + std::to_string(p), summa->seconds,
                                  s.seconds,
                                  "t(summa)/t(scalapack PxGEMM, nb=" + s.spec.param("block_size") +
                                      "), n=" + s.spec.param("n") + ", grid " + s.spec.param("grid")));
    }
  }
}

struct ScalingCase {
  Decomposition decomposition = Decomposition::row;
  int p = 1;
  std::int64_t n = 0;
  kernels::ProcessGrid grid;
};

}  // namespace

class MatmulScalingExperiment : public CaseList<ScalingCase, Experiment> {
 public:
  void configure(ConfigNode& node, const RunContext& ctx) override {
    comm_ = ctx.comm;
    rank_ = ctx.rank;
    clear_cases();
    weak_ = node.get_choice("mode", {"strong", "weak"}, "strong") == "weak";
    n_ = node.get_int("n", 512, 1, kMaxN);
    ranks_ = node.get_list<std::int64_t>("ranks", default_ranks(ctx.ranks));
    node.default_from("ranks", "1, 2, 4, … and the job size");
    std::sort(ranks_.begin(), ranks_.end());
    ranks_.erase(std::unique(ranks_.begin(), ranks_.end()), ranks_.end());
    for (std::int64_t p : ranks_) {
      if (p < 1 || p > ctx.ranks) {
        node.fail("ranks", "p=" + std::to_string(p) + " is not between 1 and the job's " +
                               std::to_string(ctx.ranks) + " ranks (start more with mpiexec -n)");
      }
      const std::int64_t n = size_for(p);
      if (n < p) {
        node.fail("n", (weak_ ? "n_p = round(n·∛p) = " : "n = ") + std::to_string(n) +
                           " is smaller than p=" + std::to_string(p) +
                           " ranks: every rank (every process row and column) needs a row");
      }
      if (n > kMaxN)
        node.fail("n", "n_p = " + std::to_string(n) + " at p=" + std::to_string(p) + " exceeds " +
                           std::to_string(kMaxN));
    }
    decompositions_.clear();
    for (const auto& s :
         node.get_choice_list("decompositions", {"row", "summa", "scalapack"}, {"row", "summa"})) {
      decompositions_.push_back(s == "row"     ? Decomposition::row
                                : s == "summa" ? Decomposition::summa
                                               : Decomposition::scalapack);
    }
    block_size_ = node.get_int("block_size", kScalapackDefaultBlock, 1, kMaxN);
    dtypes_ = read_dtypes(node, ctx.default_dtype);
    grid_.reset();
    if (node.has("grid")) {
      const auto g = node.get_list<std::int64_t>("grid", {});
      if (g.size() != 2 || g[0] < 1 || g[1] < 1) node.fail("grid", "must be [pr, pc], two positive integers");
      // Sides beyond the job size can form no grid; bounding them first keeps pr·pc exact.
      if (g[0] > ctx.ranks || g[1] > ctx.ranks) {
        node.fail("grid", "each side must be at most the job's " + std::to_string(ctx.ranks) + " ranks");
      }
      for (std::int64_t p : ranks_) {
        if (g[0] * g[1] != p) {
          node.fail("grid", "[" + std::to_string(g[0]) + ", " + std::to_string(g[1]) +
                                "] is a process grid that cannot be formed from p=" + std::to_string(p) +
                                " ranks: pr·pc must equal every p in 'ranks'");
        }
      }
      grid_ = kernels::ProcessGrid{static_cast<int>(g[0]), static_cast<int>(g[1])};
    } else {
      node.default_from("grid", "the squarest pr×pc factorisation of each p");
    }
    device_ = read_device(node);
    kernel_ = read_gemm_kernel(node);
    if (std::count(decompositions_.begin(), decompositions_.end(), Decomposition::scalapack)) {
      if (!scalapack_available())
        node.fail("decompositions",
                  "'scalapack' needs a build with ScaLAPACK (Debian: apt-get install "
                  "libscalapack-openmpi-dev, then reconfigure); this build has none");
      if (!uses_host_memory(device_))
        node.fail("decompositions", "'scalapack' runs in host memory only; device " + describe(device_) +
                                        " is not: choose device: cpu (or drop scalapack)");
    }
    try {
      path_ =
          comm::choose_comm_path(node.get_choice("gpu_aware_mpi", {"auto", "on", "off"}, "auto"), device_);
    } catch (const std::invalid_argument& e) {
      node.fail("gpu_aware_mpi", e.what());
    }
    for (DType dt : dtypes_) {
      for (Decomposition d : decompositions_) {
        const std::string name = name_of(d);
        const bool sl = d == Decomposition::scalapack;  // its own BLAS, on host pointers
        for (std::int64_t p : ranks_) {
          const auto grid = grid_for(d, static_cast<int>(p));
          const std::int64_t n = size_for(p);
          CaseSpec c;
          const std::string kernel = to_string(sl ? GemmKernel::vendor : kernel_);
          c.label = name + " p=" + std::to_string(p) + " n=" + std::to_string(n) + " " +
                    (sl ? "nb=" + std::to_string(block_size_) : kernel);
          c.params = {{"mode", weak_ ? "weak" : "strong"},
                      {"decomposition", name},
                      {"ranks", std::to_string(p)},
                      {"n", std::to_string(n)},
                      {"grid", grid_text(grid)},
                      {"comm_path", comm::to_string(sl ? comm::CommPath::direct : path_)},
                      {"kernel", kernel}};
          if (sl) c.params.emplace_back("block_size", std::to_string(block_size_));
          c.device = device_;
          c.dtype = dt;
          c.ceiling = gemm_ceiling(device_, dt);  // p ranks, each bounded by one device's
          c.ceiling_scale = static_cast<int>(p);
          c.flops_estimate = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) /
                             static_cast<double>(p);
          c.device_bytes =
              sl ? scalapack_bytes_per_rank(n, grid, block_size_, size_of(dt))
                 : device_bytes_per_rank(d, n, grid, size_of(dt),
                                         path_ == comm::CommPath::staged && uses_host_memory(device_));
          c.size_key = "n";
          add_case(c, {d, static_cast<int>(p), n, grid});
        }
      }
    }
  }

  void setup(const CaseSpec& spec) override {
    dtype_ = spec.dtype;
    case_ = case_of(spec);
    // Collective over the job: ranks >= p get a null communicator and idle through the case.
    sub_ = comm_.split(rank_ < case_.p ? 0 : comm::kNoColour, rank_);
    if (!sub_.is_null() && case_.decomposition == Decomposition::scalapack) {
      engine_ = make_scalapack_matmul(dtype_, spec.device, sub_, case_.n, case_.grid, block_size_);
    } else if (!sub_.is_null()) {
      engine_ = make_distributed_matmul(case_.decomposition, dtype_, spec.device, sub_, case_.n, case_.grid,
                                        path_, kernel_);
    }
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
      return {true,
              "idle: rank " + std::to_string(rank_) + " is not among the first " + std::to_string(case_.p)};
    const double err = engine_->identity_error();
    const double tol = identity_tolerance(dtype_, case_.n);
    Check check{err <= tol, "|Cv-A(Bv)|/|A(Bv)| = " + io::significant(err, 2) +
                                (err <= tol ? " <= " : " > ") + io::significant(tol, 2)};
    if (case_.n <= kExactCheckMaxN) {
      const auto c = engine_->gather_c();
      if (!c.empty()) {
        const std::int64_t wrong = host_mismatches(c, case_.n);
        check.passed = check.passed && wrong == 0;
        check.detail += wrong == 0 ? "; exact match with host triple loop"
                                   : "; " + std::to_string(wrong) + " entries differ from host triple loop";
      }
    }
    return check;
  }

  Work work() const override {
    const double n = static_cast<double>(case_.n);
    const double elem = static_cast<double>(size_of(dtype_));
    return {received_elements(case_.decomposition, case_.n, case_.grid) * elem, 2 * n * n * n};
  }

  void teardown() override {
    engine_.reset();
    sub_ = comm::Communicator();
  }

  std::vector<Finding> summarize(const std::vector<CaseResult>& results) const override;

 private:
  std::int64_t size_for(std::int64_t p) const {
    return weak_ ? std::llround(static_cast<double>(n_) * std::cbrt(static_cast<double>(p))) : n_;
  }
  kernels::ProcessGrid grid_for(Decomposition d, int p) const {
    if (d == Decomposition::row) return {p, 1};
    return grid_ ? *grid_ : kernels::square_grid(p);
  }

  comm::Communicator comm_;
  int rank_ = 0;
  bool weak_ = false;
  std::int64_t n_ = 0;
  std::vector<std::int64_t> ranks_;
  std::vector<Decomposition> decompositions_;
  std::int64_t block_size_ = kScalapackDefaultBlock;
  std::vector<DType> dtypes_;
  std::optional<kernels::ProcessGrid> grid_;
  Device device_;
  comm::CommPath path_ = comm::CommPath::staged;

  DType dtype_ = DType::f32;
  ScalingCase case_;
  comm::Communicator sub_;
  std::unique_ptr<DistributedMatmul> engine_;
  GemmKernel kernel_ = GemmKernel::vendor;
};

std::vector<Finding> MatmulScalingExperiment::summarize(const std::vector<CaseResult>& results) const {
  // Per dtype and decomposition, the cases by p; the smallest p (1 unless `ranks` omits it)
  // is the baseline.
  ByGroupAndP groups;
  for (const auto& r : results) {
    const ScalingCase& c = case_of(r.spec);
    const std::string name = name_of(c.decomposition);
    groups[name + "_" + to_string(r.spec.dtype)][c.p] = &r;
  }
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
      const std::string where =
          "n=" + std::to_string(c.n) + ", grid " + grid_text(c.grid) + ", " + comm::to_string(path_);
      if (tp <= 0 || t1 <= 0) continue;
      // The baseline against itself (speedup 1, efficiency 100 %) says nothing.
      const bool baseline = p == p1;
      if (!baseline && weak_) {
        out.push_back(efficiency_finding("efficiency_" + suffix, base.seconds, r->seconds, 1,
                                         "weak: t(" + ref + ", n=" + std::to_string(case_of(base.spec).n) +
                                             ")/t(p=" + std::to_string(p) + ", " + where + ")"));
      } else if (!baseline) {
        Finding efficiency =
            efficiency_finding("efficiency_" + suffix, base.seconds, r->seconds, static_cast<double>(p1) / p,
                               "strong: " + std::to_string(p1) + "·t(" + ref + ")/(" + std::to_string(p) +
                                   "·t(p=" + std::to_string(p) + "))");
        // The speedup is the same measurement: it stands or falls with the efficiency.
        Finding speedup{"", "speedup_" + suffix, t1 / tp, "x",
                        "strong: t(" + ref + ")/t(p=" + std::to_string(p) + "), " + where};
        if (!efficiency.reliable) speedup.mark_unreliable(efficiency.unreliable_because);
        out.push_back(speedup);
        out.push_back(efficiency);
      }
      double comm = 0, compute = 0;
      for (const auto& [name, stats] : r->phases) {
        (name == "comm" ? comm : compute) += stats.median;
      }
      // scalapack's messages travel inside its one call: it has no split to report.
      if (comm + compute > 0 && c.decomposition != Decomposition::scalapack) {
        out.push_back({"", "comm_fraction_" + suffix, 100 * comm / (comm + compute), "%",
                       "median comm " + io::significant(comm, 2) + " s, compute " +
                           io::significant(compute, 2) + " s (slowest rank per phase)"});
      }
    }
  }
  add_summa_over_scalapack(groups, out);
  return out;
}

MINIGPU_REGISTER_EXPERIMENT(
    MatmulScalingExperiment, "matmul_scaling",
    "Distributed C = A·B over 1..P ranks (row blocks, SUMMA, ScaLAPACK): speedup and efficiency",
    "scaling.png");

}  // namespace minigpu
