// The command a run prints for finishing it after an interruption ("to finish it: ...").
#pragma once

#include <string>
#include <vector>

namespace minigpu {

// How to ask for this run again, less `--resume DIR` (the caller adds it):
// - the command a launcher script says it is (MINIGPU_RESUME_WITH: scripts/run.sh sets
//   "scripts/run.sh -n RANKS", the sbatch script its own sbatch line), else
// - the launcher this process runs under, as it was typed (`mpirun -np 2 --bind-to core`,
//   read from the launcher's command line), when the job has more than one rank, then this
//   binary as invoked and `run`;
// then every argument after `run` but --resume and --output-dir (a resumed run completes in
// its own directory), so the user's own overrides (--repetitions, --set, --only) come back.
std::vector<std::string> resume_command(int argc, char** argv, int ranks);

// The words before `binary` on the command line of the nearest launcher (mpirun, mpiexec,
// orterun, prterun, Hydra's mpiexec) among this process's ancestors; under srun, which is no
// ancestor of its tasks, `srun -n RANKS`; else `mpiexec -n RANKS`, the MPI standard's
// launcher. Empty for one rank.
std::vector<std::string> launcher_words(const std::string& binary, int ranks);

}  // namespace minigpu
