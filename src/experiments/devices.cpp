// devices: the chapter's "Computing Devices" and "Tensors and GPUs" cells as checked rules.
// Each case performs one rule's action in run_once and verify() checks its outcome:
//   query        num_gpus(), try_gpu(), try_gpu(num_gpus()) falls back to cpu, try_all_gpus()
//   create       X = ones(2,3) on try_gpu() lives there
//   copy_to      Z = X.copy_to(other) has X's values in new memory on the other device
//   to           X.to(its device) shares storage; X.copy_to(its device) does not
//   mismatch     X + Y across devices throws DeviceMismatchError naming both
//   cross_rank_copy (2+ ranks) X made on rank 0's GPU is sent to rank 1 (MPI, staged through
//                host memory unless MPI is GPU-aware); rank 1 computes Z = X + Y on its GPU
// Accounting: no bytes or flops worth a rate; the times show what each rule costs.
#include "comm/views.hpp"
#include "core/errors.hpp"
#include "engine/case_grid.hpp"
#include "engine/registry.hpp"
#include "ops/tensor_factory.hpp"
#include "ops/tensor_ops.hpp"

namespace minigpu {
namespace {

enum class Rule { query, create, copy_to, to, mismatch, cross_rank_copy };
const Names<Rule> kRules = {{"query", Rule::query},       {"create", Rule::create},
                            {"copy_to", Rule::copy_to},   {"to", Rule::to},
                            {"mismatch", Rule::mismatch}, {"cross_rank_copy", Rule::cross_rank_copy}};

class DevicesExperiment : public CaseList<Rule> {
 public:
  void configure(ConfigNode&, const RunContext& ctx) override {
    ctx_ = ctx;
    for (const auto& [name, rule] : kRules) {
      if (rule != Rule::cross_rank_copy || ctx_.ranks() >= 2)
        add_case(case_spec(name, {{"rule", name}}, try_gpu(), DType::f32, "", ""), rule);
    }
  }

  void setup(const CaseSpec& spec) override {
    rule_ = case_of(spec);
    device_ = spec.device;
    // The "other" device: a second GPU when there is one, else the cpu (or gpu:0 from cpu).
    other_ = num_gpus() > 1 ? gpu(1) : (device_.is_cpu() ? try_gpu() : cpu());
    x_ = ones<float>({2, 3}, device_);
    y_ = ones<float>({2, 3}, other_);
    error_.clear();
    if (rule_ == Rule::cross_rank_copy) {
      x_ = arange<float>(0, 6, 1, device_).reshape({2, 3});
      y_ = full<float>({2, 3}, 10.0f, device_);
      received_ = zeros<float>({2, 3}, device_);
      transport_ =
          comm::Transport<float>(comm::choose_comm_path("auto", device_), 12, "minigpu::devices_stage");
    }
  }

  /// Rank 0 sends its X to rank 1, which adds its own Y on its own device.
  void cross_rank_copy() {
    const int dest = ctx_.rank() == 0 ? 1 : comm::kNoRank;
    const int source = ctx_.rank() == 1 ? 0 : comm::kNoRank;
    with_views(
        device_,
        [&](const auto& x, const auto& r) { comm::sendrecv(x, dest, r, source, 7, ctx_.comm, transport_); },
        x_, received_);
    if (ctx_.rank() == 1) z_ = received_ + y_;
  }

  void run_once() override {
    if (rule_ == Rule::query) {
      gpus_ = try_all_gpus();
      fallback_ = try_gpu(num_gpus());
    } else if (rule_ == Rule::create) {
      z_ = ones<float>({2, 3}, try_gpu());
    } else if (rule_ == Rule::copy_to) {
      z_ = x_.copy_to(other_);
    } else if (rule_ == Rule::to) {
      z_ = x_.to(device_);
      w_ = x_.copy_to(device_);
    } else if (rule_ == Rule::cross_rank_copy) {
      cross_rank_copy();
    } else if (rule_ == Rule::mismatch) {
      error_.clear();
      try {
        z_ = x_ + y_;
      } catch (const DeviceMismatchError& e) {
        error_ = e.what();
      }
    }
  }

  Check verify() override {
    if (rule_ == Rule::query) {
      const bool ok = static_cast<int>(gpus_.size()) == num_gpus() && fallback_ == cpu();
      return {ok, std::to_string(num_gpus()) + " GPUs; try_gpu(" + std::to_string(num_gpus()) +
                      ") = " + describe(fallback_)};
    }
    if (rule_ == Rule::create) {
      return {z_.device() == try_gpu() && z_.to_vector() == std::vector<float>(6, 1.0f),
              "created on " + describe(z_.device())};
    }
    if (rule_ == Rule::copy_to) {
      const bool ok =
          z_.device() == other_ && z_.to_vector() == x_.to_vector() && !z_.shares_storage_with(x_);
      return {ok, describe(device_) + " -> " + describe(other_)};
    }
    if (rule_ == Rule::to) {
      return {z_.shares_storage_with(x_) && !w_.shares_storage_with(x_), "to() shares, copy_to() allocates"};
    }
    if (rule_ == Rule::cross_rank_copy) {
      if (ctx_.rank() != 1)
        return {true, ctx_.rank() == 0 ? "sent X from " + describe(device_) : "not involved"};
      const std::vector<float> want = {10, 11, 12, 13, 14, 15};
      return {
          z_.device() == device_ && z_.to_vector() == want,
          "Z = X(rank 0) + Y on rank 1's " + describe(device_) + " via " + comm::to_string(transport_.path)};
    }
    if (other_ == device_) return {true, "not applicable: this process has a single device"};
    const std::string want = to_string(device_) + " and " + to_string(other_);
    return {error_.find(want) != std::string::npos, error_.empty() ? "no error raised" : error_};
  }

  void teardown() override { x_ = y_ = z_ = w_ = received_ = Tensor<float>(); }

 private:
  Rule rule_ = Rule::query;
  std::string error_;
  Device device_, other_, fallback_;
  std::vector<Device> gpus_;
  Tensor<float> x_, y_, z_, w_, received_;
  RunContext ctx_;
  comm::Transport<float> transport_;
};

}  // namespace

MINIGPU_REGISTER_EXPERIMENT(DevicesExperiment, {"devices",
                                                "The chapter's device rules, each checked pass/fail",
                                                "do the device rules hold?",
                                                "",
                                                {},
                                                ""});

}  // namespace minigpu
