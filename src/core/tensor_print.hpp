// Printing a tensor the way the chapter's frameworks do: values, then the device.
#pragma once

#include "core/tensor.hpp"

#include <iosfwd>

namespace minigpu {

/// Copies to the host and writes e.g. "tensor([[1, 1, 1],\n        [1, 1, 1]], device=gpu:0)".
/// Large tensors are summarised with "..." (first and last 3 along each axis).
template <class T>
std::ostream& operator<<(std::ostream& os, const Tensor<T>& t);

}  // namespace minigpu
