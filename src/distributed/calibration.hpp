// The α, β and γ of perfmodel's scaling model, measured in the run whose rows they predict:
//   α, β  ping-pong between two ranks of the job through the case's device memory and
//         transport: rank 0 and a rank on its node (intra-node) and, where the job spans
//         nodes, rank 0 and a rank on another node (inter-node). α is half the median round
//         trip of an 8-byte message, β the rest of a 4 MiB one's per byte.
//   γ     the local GEMM kernel timed for a block shape on the case's device as C += A·B, the
//         way SUMMA's panels accumulate (the median of a few fenced runs after a warm-up, as
//         the cases are timed). A shape of more than 2^32 flop is timed with its longest sides halved
//         until it fits and scaled by its flops: the rate no longer grows there, and
//         calibrating a 4096³ product would cost as much as the case itself. Halving the
//         longest side first keeps a thin panel's m×n wide, so its C traffic per flop is kept.
//         A shape is timed again at each later case's setup (three sessions at most) and the
//         lower median of its sessions used: a calibration that fell into a few slow seconds
//         of a shared machine would otherwise mispredict every row that reuses it (+50 % once),
//         and one that fell into a quiet moment of a busy one should not set the rate alone.
// Calibration runs in untimed setup, never inside a timed repetition, and is timed by the
// engine's CalibrationClock (core/calibration_clock.hpp), never by a clock of its own: it says
// what to run, the engine times it and records it in run.json's `calibration`.
#pragma once

#include "comm/communicator.hpp"
#include "comm/gpu_aware.hpp"
#include "core/calibration_clock.hpp"
#include "core/device.hpp"
#include "core/gemm_dims.hpp"
#include "core/shape.hpp"
#include "distributed/distributed_matmul.hpp"
#include "distributed/scaling_model.hpp"
#include "gemm/choice.hpp"
#include "io/results.hpp"
#include "kernels/block_partition.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace minigpu::perfmodel {

struct NetworkCalibration {
  perfmodel::Link intra_node, inter_node;
  bool spans_nodes = false;  ///< inter_node was measured (else it repeats intra_node)
  int ranks_per_node = 1;    ///< the most ranks any node holds
};

/// Collective over `comm`: every rank calls it with the same arguments; all get the same result.
NetworkCalibration calibrate_network(const comm::Communicator& comm, Device device, comm::CommPath path,
                                     CalibrationClock& clock);

/// Seconds of one local C(m×n) += A(m×k)·B(k×n) with a kernel on a device, timed on this rank
/// and cached; timed again once per session (see new_session) while a shape has had fewer
/// than kSessions; its figure is the lower median of those sessions.
class GemmTimer {
 public:
  static constexpr int kSessions = 3;
  GemmTimer(GemmKernel kernel, Device device, DType dtype, CalibrationClock& clock)
      : kernel_(kernel), device_(device), dtype_(dtype), clock_(&clock) {}
  double seconds(std::int64_t m, std::int64_t n, std::int64_t k);
  void new_session() { ++session_; }
  /// The rate of the largest shape timed so far, in flop/s (0 before any), and that shape.
  double best_known_rate() const;
  std::string largest_shape() const;

 private:
  using Shape = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  struct Timed {
    std::vector<double> sessions;  // sorted
    int last_session = -1;
    double seconds() const { return sessions.empty() ? 0 : sessions[(sessions.size() - 1) / 2]; }
  };
  double time_once(const Shape& shape) const;
  const std::pair<const Shape, Timed>* largest() const;
  GemmKernel kernel_;
  Device device_;
  DType dtype_;
  CalibrationClock* clock_;
  int session_ = 0;
  std::map<Shape, Timed> cache_;
};

/// One distributed product as the model sees it: the algorithm, p ranks on `grid`, n, and
/// SUMMA's panel width (0: the model chooses), or ScaLAPACK's block size where host_blas.
struct ModelledProduct {
  bool summa = false, overlap = false;
  int p = 1;
  std::int64_t n = 0;
  kernels::ProcessGrid grid;
  DType dtype = DType::f32;
  std::int64_t panel_width = 0;
  /// ScaLAPACK's products run in the host BLAS it links (the vendor kernel), whatever kernel
  /// the run's own products use: on a CPU where the two differ 4x, modelling them with the
  /// native kernel's rate put its rows 78 % below what they measured.
  bool host_blas = false;
};

/// `c` as the model sees it, SUMMA's panel `panel_width` wide (0: the model chooses). ScaLAPACK
/// (panel_width: its block size nb) is modelled as blocking SUMMA in the steps its PBLAS takes
/// (perfmodel::pblas_k_steps): one product of all of k on one rank, and otherwise 32 columns a
/// step whatever nb is. Modelled in panels of nb = 64 instead, its rows read 14-35 % slow at
/// p = 1 and 33-44 % fast at p = 2 (2-core Zen 3, n = 2048 and 4096, both dtypes); in PBLAS's
/// steps, -17 ... +2 % and -9 ... -31 %, where the model's own timing of the rank-32 update
/// moved 0.151-0.193 s between runs and the product 0.211-0.219 s (float32, n = 2048).
ModelledProduct modelled_product(const ScalingCase& c, DType dtype, std::int64_t panel_width,
                                 std::int64_t block_size);

/// A model curve: the product it models at p ranks, by its name.
using ModelCurves = std::map<std::string, std::function<ModelledProduct(int)>>;

/// A scaling study's model across its cases: calibrated once per run, a plan per case (panel
/// width and estimate) that all ranks agree on, each row's model values, and run.json's record.
class ScalingModel {
 public:
  /// Collective over `comm` the first time (α and β, timed by `clock`, not null, which times every GEMM
  /// shape after it too); then the model of each of `curves` at p = 1, 2, 4, … 64 (plots draw
  /// it beyond the measured ranks). A no-op afterwards. `picks`: the local products' kernel per dtype.
  void calibrate(const comm::Communicator& comm, Device device, comm::CommPath path,
                 const std::map<DType, GemmPick>& picks, CalibrationClock* clock, const ModelCurves& curves);
  /// This rank's (panel width, estimate) for `c`, its local products timed for their shapes.
  std::pair<std::int64_t, perfmodel::Estimate> plan(const ModelledProduct& c);
  /// Keeps case `index`'s product, its panel width as all ranks agreed it, then starts a new
  /// timing session and estimates every case remembered so far again: a later case's setup
  /// re-times the shapes of the earlier ones, so one slow calibration does not stick.
  void remember(std::size_t index, const ModelledProduct& c);
  /// Collective over `comm`: the panel width all ranks run case `index` at, the widest that
  /// plan() chose on the ranks that work; those remember `c` at it.
  std::int64_t agree_panel(const comm::Communicator& comm, std::size_t index, ModelledProduct c, bool works);
  /// Appends model_s, model_error_pct, model_comm_s, model_comm_exposed_s (and SUMMA's
  /// panel_width) to a row whose case was planned in this run (set up, or resumed from another).
  void annotate(CaseResult& r, bool summa) const;
  /// run.json's scaling_model (null before calibration), from what calibration and the cases'
  /// plans found: links and rates with their sources, and the curves' model seconds.
  nlohmann::json record() const;

 private:
  perfmodel::Machine machine(DType dtype, GemmKernel kernel);
  nlohmann::json draw(const ModelCurves& curves);
  CalibrationClock* clock_ = nullptr;
  nlohmann::json curves_ = nlohmann::json::object();
  std::optional<NetworkCalibration> network_;
  std::map<DType, GemmKernel> kernels_;
  Device device_;
  std::map<std::pair<DType, GemmKernel>, GemmTimer> timers_;
  std::map<std::size_t, std::pair<ModelledProduct, perfmodel::Estimate>> planned_;
};

/// The model's own ideal for p ranks doing `flops` in all, from its estimate `reference_s` for
/// `reference_p` ranks doing `reference_flops`: the same work per rank per second (100 %
/// efficiency, strong or weak).
double ideal_seconds(double reference_s, double reference_flops, int reference_p, double flops, int p);

/// The model never predicts above its own ideal. Per GEMM shape it times its local products,
/// and a smaller block can time faster per flop (it fits a cache): summed up, that predicted
/// 162 % efficiency beside a measured 49 %. In each curve of rows (one algorithm and dtype,
/// case_of(row) its case), a row's model_s below the ideal from the curve's row of fewest ranks
/// is held at that ideal; model_error_pct follows and model_unheld_s keeps the raw estimate.
/// The curves of ScalingModel::record are held the same way.
void hold_at_ideal(std::vector<CaseResult>& results,
                   const std::function<const ScalingCase&(const CaseResult&)>& case_of);

/// `f` (a ratio of `base`'s and `r`'s times, weighed by `work_ratio`) with the model's figure for
/// the same ratio in its note ("; model 65.1 %"), where both rows have one.
Finding with_model_figure(Finding f, const CaseResult& base, const CaseResult& r, double work_ratio);

/// The widest panel best_summa_panel() chooses.
inline constexpr std::int64_t kWidestModelPanel = 1024;

/// SUMMA's panel width on `grid` and the model's estimate: `width` if it is > 0, else the one
/// widest of 64 … 1024 that the model predicts within 3 % of the fastest.
std::pair<std::int64_t, perfmodel::Estimate> best_summa_panel(const perfmodel::Machine& m, std::int64_t n,
                                                              kernels::ProcessGrid grid, bool overlap,
                                                              std::size_t elem, std::int64_t width);

}  // namespace minigpu::perfmodel
