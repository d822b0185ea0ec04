// Exit codes of `minigpu`, and the exception that maps to "bad input".
#pragma once

#include <stdexcept>

namespace minigpu {

enum ExitCode : int {
  kExitOk = 0,            ///< everything ran and every result verified
  kExitVerifyFailed = 1,  ///< a result failed verification
  kExitBadInput = 2,      ///< bad command line or input file; nothing was run or written
  kExitRuntimeError = 3,  ///< anything else that went wrong while running
};

/// Bad command line or input: reported in one line, exit code 2, identical on every rank.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace minigpu
