// SIGINT and SIGTERM (what Slurm sends at the time limit, and mpirun forwards) ask the run to
// stop at the next case boundary instead of killing it: finished cases are kept and the run
// directory says it was interrupted. A second signal ends the process at once.
#pragma once

namespace minigpu {

/// Installs the handlers; call once, before the first case.
void install_stop_handlers();
/// The signal that asked this process to stop, or 0.
int stop_signal_received();

}  // namespace minigpu
