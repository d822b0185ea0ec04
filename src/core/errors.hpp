// Exception types and exit codes: errors are exceptions with context, turned into an exit code
// only in main. In core so that every layer can throw them.
#pragma once

#include <stdexcept>
#include <string>

namespace minigpu {

/// Exit codes of `minigpu` (README's table).
enum ExitCode : int {
  kExitOk = 0,            ///< everything ran and every result verified
  kExitVerifyFailed = 1,  ///< a result failed verification
  kExitBadInput = 2,      ///< bad command line or input file; nothing was run or written
  kExitRuntimeError = 3,  ///< anything else that went wrong while running
  kExitStalled = 4,       ///< a rank stopped answering or progressing past its case's budget (watchdog)
  kExitSignalBase = 128,  ///< + the signal: stopped early by SIGINT/SIGTERM, finished cases kept
};

/// Bad command line or input: reported in one line, exit code 2, identical on every rank.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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
