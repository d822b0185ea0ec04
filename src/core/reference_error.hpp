// How far a result is from the same computation in float64: the two measures users compare
// precisions by. Kernels compute it, experiments attach it to a row's check, io writes it.
#pragma once

namespace minigpu {

/// For rows whose precision rounds the result (bfloat16, float16, TF32; logging's norms in any).
struct ReferenceError {
  double max_abs_rel = 0;    ///< max |C − R| / mean |R| (PyTorch's TF32 notes' "relative error")
  double frobenius_rel = 0;  ///< ‖C − R‖_F / ‖R‖_F
};

}  // namespace minigpu
