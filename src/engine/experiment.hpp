// The experiment interface: configure from its own YAML node, list cases (each with the bytes
// and flops of one repetition), set up, run once (kernel launches only), verify.
// Experiments never time or print: the runner and the writers do.
#pragma once

#include "comm/communicator.hpp"
#include "config/config_node.hpp"
#include "core/binding.hpp"
#include "core/device.hpp"
#include "core/dispatch.hpp"
#include "core/fault_injection.hpp"
#include "core/low_precision.hpp"
#include "core/shape.hpp"
#include "engine/calibration_log.hpp"
#include "engine/phase_clock.hpp"
#include "gemm/choice.hpp"
#include "io/results.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace minigpu {

/// What every experiment may know about the job it runs in: a value, built where the job is
/// known (`minigpu run`: app/run_command.cpp; tests and tools: on()). A default-constructed one
/// is empty (a null communicator, no chooser): a place for an experiment to keep configure()'s.
struct RunContext {
  /// A context for the job on `comm`: a calibration log, `kernel: auto` measured (rank 0 for
  /// all) and cached under `gemm_cache_key` (nowhere when null), no faults injected, `binding`
  /// as given (by default a lone rank without a GPU).
  static RunContext on(comm::Communicator comm, DeviceBinding binding = {},
                       nlohmann::json gemm_cache_key = nullptr);

  comm::Communicator comm;
  DType default_dtype = DType::f32;
  /// `kernel: auto`'s chooser for this run, shared by the context's copies (rank 0 of `comm`
  /// measures for all); `minigpu run` hands the experiments one that caches beside the ceilings.
  std::shared_ptr<GemmChooser> gemm;
  /// The engine's clock for what an experiment times in its setup (a model's calibration),
  /// shared by the context's copies; the runner records it and refuses it inside repetitions.
  std::shared_ptr<CalibrationLog> calibration;
  /// The test hooks (MINIGPU_INJECT_*) as `minigpu run` read them once; none by default. The
  /// context's copies share its count.
  std::shared_ptr<FaultInjection> faults = std::make_shared<FaultInjection>();
  /// Where this rank sits on its node and the GPU and CPUs it is bound to: main's, from
  /// bind_rank (by default a lone rank without a GPU, as in a unit test).
  DeviceBinding binding;
  /// This rank and the job's size: the communicator's, the one place that knows them.
  int rank() const { return comm.rank(); }
  int ranks() const { return comm.size(); }
  /// The kernel a case's m×k by k×n products run, and why. Every rank of `comm` calls it with
  /// the same arguments in the same order (it may measure, rank 0 timing for all). A non-empty
  /// `no_vendor` says why this case cannot run the vendor GEMM: `auto` then takes native; so it
  /// does where `prefer` allows it.
  GemmPick pick_gemm(GemmChoice choice, Device device, DType dtype, std::int64_t m, std::int64_t n,
                     std::int64_t k, const std::string& no_vendor = "",
                     const NativePreference& prefer = {}) const;
  /// What `gemm` measured or read, for run.json; none when no case asked for `auto`.
  std::optional<io::GemmChoiceRecord> gemm_record() const;
};

/// The measurement contract, BabelStream's Stream<T> in size: configure from the input, list the
/// cases, set one up, run it once, verify it, free it. Conclusions drawn from the results are
/// optional and apart (Analysis, below).
class Experiment {
 public:
  virtual ~Experiment() = default;
  /// Reads this experiment's keys from `node` (throwing InputError on bad values) and lists its
  /// cases. Called once, on a fresh instance.
  virtual void configure(ConfigNode& node, const RunContext& ctx) = 0;
  /// Every case the configuration expands to, in run order; spec.index is the case's
  /// position in the experiment's own typed case list, which setup() and findings() use.
  virtual std::vector<CaseSpec> cases() const = 0;
  /// Allocates and fills the case's data deterministically.
  virtual void setup(const CaseSpec& spec) = 0;
  /// One repetition: kernel launches and copies only.
  virtual void run_once() = 0;
  /// Checks the last repetition's result against an independent reference.
  virtual Check verify() = 0;
  /// Frees the case's data.
  virtual void teardown() {}
  /// A case carried over from the run that --resume completes, in setup()'s place on every rank:
  /// nothing is allocated or measured, but what annotate() needs of the case (a model's
  /// prediction) is prepared as setup() would.
  virtual void resumed(const CaseSpec&) {}

  /// Set by the runner around timed repetitions; null otherwise.
  void attach_phase_clock(PhaseClock* clock) { phase_clock_ = clock; }

 protected:
  /// Labels the work since the previous boundary as `name` (e.g. "compute", "comm"). Every
  /// rank must end the same phases in the same order. A no-op outside timed repetitions.
  void end_phase(const std::string& name) {
    if (phase_clock_) phase_clock_->end_phase(name);
  }

 private:
  PhaseClock* phase_clock_ = nullptr;
};

/// What an experiment concludes once every case ran, from the results alone (nothing is timed
/// here): an experiment with conclusions derives from Analysis too, and the runner asks it.
/// All ranks call each hook with the same results, resumed ones included.
class Analysis {
 public:
  virtual ~Analysis() = default;
  /// Adds figures derived per row (CaseResult::values), before findings().
  virtual void annotate(std::vector<CaseResult>&) const {}
  /// Conclusions across the experiment's results; each must match a pattern its registration
  /// declares.
  virtual std::vector<Finding> findings(const std::vector<CaseResult>&) const { return {}; }
  /// The experiment's own section of run.json as {key, value} (e.g. the figures a model was
  /// calibrated with), read after findings(); an empty key for none.
  virtual std::pair<std::string, nlohmann::json> run_record_section() const { return {}; }
};

/// The data and kernels of one case, typed by memory space and scalar type behind one
/// interface: every experiment erases types this way, and nowhere else.
class CaseState {
 public:
  virtual ~CaseState() = default;
  /// One repetition: kernel launches and copies only.
  virtual void run() = 0;
  /// The last repetition's result against an independent reference.
  virtual Check verify() = 0;
};

/// State<Mem, T>(args...) for the memory space of `device` and the scalar type of `dtype`,
/// held as Base (CaseState, or an experiment's own interface derived from it).
template <template <class, class> class State, class Base = CaseState, class... Args>
std::unique_ptr<Base> make_case_state(Device device, DType dtype, const Args&... args) {
  return dispatch(device, dtype, [&](auto place) -> std::unique_ptr<Base> {
    using P = decltype(place);
    return std::make_unique<State<typename P::memory_space, typename P::value_type>>(args...);
  });
}

/// An experiment with a typed case list, filled by configure() through add_case(): cases()
/// and the case behind a spec come from here. By default a case runs as a CaseState that
/// setup() builds (setup_state<State> for State<Mem, T>(case), or state_ set by hand), which
/// runs, verifies and is freed; an experiment that runs its cases its own way overrides
/// run_once(), verify() and teardown() and leaves state_ empty.
template <class Case>
class CaseList : public Experiment {
 public:
  std::vector<CaseSpec> cases() const override { return specs_; }
  void run_once() override { state_->run(); }
  Check verify() override { return state_->verify(); }
  void teardown() override { state_.reset(); }

 protected:
  /// Appends a case; its spec's index is filled in here.
  void add_case(CaseSpec spec, Case c) {
    spec.index = cases_.size();
    specs_.push_back(std::move(spec));
    cases_.push_back(std::move(c));
  }
  /// The typed case behind a spec (of a result, say).
  const Case& case_of(const CaseSpec& spec) const { return cases_.at(spec.index); }
  /// The spec of the case being set up or run (set by setup()).
  const CaseSpec& current() const { return current_; }
  void set_current(const CaseSpec& spec) { current_ = spec; }
  /// setup() for a case that runs as State<Mem, T>(case, extra...) on its device and dtype.
  /// With SixteenBit, a bfloat16 or float16 case runs as State<its device's memory, bfloat16
  /// or float16> too.
  template <template <class, class> class State, bool SixteenBit = false, class... Extra>
  void setup_state(const CaseSpec& spec, const Extra&... extra) {
    set_current(spec);
    if constexpr (SixteenBit) {
      if (is_low_precision(spec.dtype))
        return void(state_ = uses_host_memory(spec.device)
                                 ? make_16bit_state<State, HostMemSpace>(spec, extra...)
                                 : make_16bit_state<State, GpuMemSpace>(spec, extra...));
    }
    state_ = make_case_state<State>(spec.device, spec.dtype, case_of(spec), extra...);
  }

  std::unique_ptr<CaseState> state_;

 private:
  template <template <class, class> class State, class Mem, class... Extra>
  std::unique_ptr<CaseState> make_16bit_state(const CaseSpec& spec, const Extra&... extra) const {
    if (spec.dtype == DType::bf16) return std::make_unique<State<Mem, bfloat16>>(case_of(spec), extra...);
    return std::make_unique<State<Mem, float16>>(case_of(spec), extra...);
  }

  std::vector<Case> cases_;
  std::vector<CaseSpec> specs_;
  CaseSpec current_;
};

}  // namespace minigpu
