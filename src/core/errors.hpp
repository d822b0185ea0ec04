// Exception types of the device/tensor core, so callers and tests can tell them apart.
#pragma once

#include <stdexcept>
#include <string>

namespace minigpu {

/// Operands of one operation live on different devices (the chapter's same-device rule).
class DeviceMismatchError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A device that this process does not have, e.g. gpu(3) with one GPU.
class DeviceNotFoundError : public std::out_of_range {
 public:
  using std::out_of_range::out_of_range;
};

/// Shapes that cannot be created or combined.
class ShapeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace minigpu
