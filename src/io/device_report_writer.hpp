// Console form of the device report (`minigpu devices`).
#pragma once

#include "core/environment.hpp"

#include <iosfwd>

namespace minigpu::io {

/// Writes an nvidia-smi-like table followed by the chapter's cells and their answers.
void write_device_report(std::ostream& os, const DeviceReport& report, int mpi_ranks);

}  // namespace minigpu::io
