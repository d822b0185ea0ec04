// The experiment interface: configure from its own YAML node, list cases, set up, run once
// (kernel launches only), verify, and declare the bytes and flops of one repetition.
// Experiments never time or print: the runner and the writers do.
#pragma once

#include "config/config_node.hpp"
#include "core/device.hpp"
#include "core/shape.hpp"
#include "experiments/phase_clock.hpp"
#include "io/results.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace minigpu {

/// What every experiment may know about the job it runs in.
struct RunContext {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0;
  int ranks = 1;
  DType default_dtype = DType::f32;
};

class Experiment {
 public:
  virtual ~Experiment() = default;
  /// Reads this experiment's keys from `node` (throwing InputError on bad values).
  virtual void configure(ConfigNode& node, const RunContext& ctx) = 0;
  /// Every case the configuration expands to, in run order.
  virtual std::vector<CaseSpec> cases() const = 0;
  /// Allocates and fills the case's data deterministically.
  virtual void setup(const CaseSpec& spec) = 0;
  /// One repetition: kernel launches and copies only.
  virtual void run_once() = 0;
  /// Checks the last repetition's result against an independent reference.
  virtual Check verify() = 0;
  /// Bytes moved and flops done by one repetition of the current case.
  virtual Work work() const = 0;
  /// Frees the case's data.
  virtual void teardown() {}
  /// Conclusions across this experiment's results (all ranks call it with the same results).
  virtual std::vector<Finding> summarize(const std::vector<CaseResult>&) const { return {}; }

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

}  // namespace minigpu
