// Kernels of a Linear(in, 1) layer trained by minibatch SGD on the squared loss
//   L = Σ_i (x_i·w + b − y_i)² / (2B),  grad_w = Xᵀ·err / B,  grad_b = Σ_i err_i / B,
// with err = X·w + b − y. X is row-major B×in in a flat View; w has `in` entries, b one.
// X and y may be stored in bfloat16 or float16: err, the gradient and the parameters are then
// float (mixed precision's master weights), and every sum runs in err's type.
// Pure Kokkos: each kernel runs in the execution space of the View it writes.
#pragma once

#include "kernels/elementwise.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace minigpu::kernels {

// Kernel bodies are functors, not KOKKOS_LAMBDAs: see MapBody (kernels/elementwise.hpp).

/// linear_forward's body: out(i) = x(i,:)·w + b(0).
template <class OutView, class XView, class WView, class BView>
struct LinearForwardBody {
  OutView out;
  XView x;
  WView w;
  BView b;
  std::int64_t in;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    using T = typename OutView::non_const_value_type;
    T acc = 0;
    for (std::int64_t j = 0; j < in; ++j) acc += x(i * in + j) * w(j);
    out(i) = acc + b(0);
  }
};

/// out(i) = x(i,:)·w + b(0) for the `rows` rows of x.
template <class OutView, class XView, class WView, class BView>
void linear_forward(const OutView& out, const XView& x, const WView& w, const BView& b, std::int64_t rows,
                    std::int64_t in) {
  Kokkos::parallel_for("linear::forward", RangeOf<OutView>(0, rows),
                       LinearForwardBody<OutView, XView, WView, BView>{out, x, w, b, in});
}

/// linear_residual's body: err(i) = x(i,:)·w + b(0) − y(i), w rounded to x's storage type.
template <class EView, class XView, class YView, class WView, class BView>
struct LinearResidualBody {
  EView err;
  XView x;
  YView y;
  WView w;
  BView b;
  std::int64_t in;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    using T = typename EView::non_const_value_type;
    using Stored = typename XView::non_const_value_type;
    T acc = 0;
    for (std::int64_t j = 0; j < in; ++j) acc += T(x(i * in + j)) * T(Stored(w(j)));
    err(i) = acc + b(0) - T(y(i));
  }
};

/// err(i) = x(i,:)·w + b(0) − y(i): the forward pass fused with the residual. Each weight
/// enters the product rounded to x's storage type, as mixed-precision training casts its
/// master weights for the forward matmul (a no-op when x holds float or double); the sum,
/// the bias and the residual stay in err's type.
template <class EView, class XView, class YView, class WView, class BView>
void linear_residual(const EView& err, const XView& x, const YView& y, const WView& w, const BView& b,
                     std::int64_t rows, std::int64_t in) {
  Kokkos::parallel_for("linear::residual", RangeOf<EView>(0, rows),
                       LinearResidualBody<EView, XView, YView, WView, BView>{err, x, y, w, b, in});
}

/// add_bias_residual's body: err(i) += b(0) − y(i).
template <class EView, class YView, class BView>
struct AddBiasResidualBody {
  EView err;
  YView y;
  BView b;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { err(i) += b(0) - y(i); }
};

/// err(i) += b(0) − y(i): the residual, where err already holds the product x·w (from a GEMM).
template <class EView, class YView, class BView>
void add_bias_residual(const EView& err, const YView& y, const BView& b, std::int64_t rows) {
  Kokkos::parallel_for("linear::add_bias_residual", RangeOf<EView>(0, rows),
                       AddBiasResidualBody<EView, YView, BView>{err, y, b});
}

/// mse_gradient's body: team j = first + league rank reduces entry j of the gradient (or the
/// bias's, or the loss) over the rows.
template <class GView, class XView, class EView, class Member>
struct MseGradientBody {
  using T = typename GView::non_const_value_type;
  GView grad;
  XView x;
  EView err;
  std::int64_t rows, in, first;
  T scale;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t j = first + team.league_rank();
    T total = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, rows),
        [&](const std::int64_t i, T& acc) {
          const T e = err(i);
          acc += j < in ? T(x(i * in + j)) * e : (j == in ? e : e * e);
        },
        total);
    Kokkos::single(Kokkos::PerTeam(team),
                   [&]() { grad(j) = j == in + 1 ? total * scale / 2 : total * scale; });
  }
};

/// grad(j) = Σ_i x(i,j)·err(i) / rows for j < in, grad(in) = Σ err / rows and
/// grad(in+1) = Σ err² / (2·rows), the batch loss, for j from `first` on (first = in when a
/// GEMM computed the weight gradient). One team per entry reduces over the rows, so the
/// gradient and the loss stay on the device.
template <class GView, class XView, class EView>
void mse_gradient(const GView& grad, const XView& x, const EView& err, std::int64_t rows, std::int64_t in,
                  std::int64_t first = 0) {
  using T = typename GView::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<typename GView::execution_space>;
  using Member = typename Policy::member_type;
  const T scale = T(1) / static_cast<T>(rows);
  Kokkos::parallel_for("linear::mse_gradient", Policy(static_cast<int>(in + 2 - first), Kokkos::AUTO),
                       MseGradientBody<GView, XView, EView, Member>{grad, x, err, rows, in, first, scale});
}

/// sgd_step's body: w(j) −= lr_w·grad(j) for j < in; at j = in the bias's step and the loss's log.
template <class WView, class BView, class GView, class LView>
struct SgdStepBody {
  using T = typename WView::non_const_value_type;
  WView w;
  BView b;
  GView grad;
  LView loss_log;
  std::int64_t step;
  T lr, lr_w;
  std::int64_t in;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j) const {
    if (j < in) {
      w(j) -= lr_w * grad(j);
    } else {
      b(0) -= lr * grad(in);
      loss_log(step) = grad(in + 1);
    }
  }
};

/// w −= lr_w·grad(0..in−1), b −= lr·grad(in), and the batch loss grad(in+1) goes to
/// loss_log(step). lr_w = lr/rows when grad(0..in−1) is an unscaled GEMM result, else lr.
template <class WView, class BView, class GView, class LView>
void sgd_step(const WView& w, const BView& b, const GView& grad, const LView& loss_log, std::int64_t step,
              typename WView::non_const_value_type lr, typename WView::non_const_value_type lr_w,
              std::int64_t in) {
  Kokkos::parallel_for("linear::sgd_step", RangeOf<WView>(0, in + 1),
                       SgdStepBody<WView, BView, GView, LView>{w, b, grad, loss_log, step, lr, lr_w, in});
}

}  // namespace minigpu::kernels
