#!/usr/bin/env bash
# scripts/run.sh's launch (scripts/common.sh mpirun_argv) in the options each launcher accepts:
# - Open MPI's mpirun: --map-by slot:PE=N --bind-to core and -x for what remote ranks need;
# - MPICH's mpiexec (Hydra): -bind-to core:N and -genv, never --oversubscribe, -x or --map-by,
#   which it refuses;
# - a launcher it does not know (srun): -n alone, the site's binding left as it is;
# and the launcher is MINIGPU_MPIEXEC, else the build's MPIEXEC_EXECUTABLE (the linked MPI's).
# Stand-ins answer --version as each launcher does. Usage: check_launcher_args.sh
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
status=0
printf '#!/bin/sh\necho "mpirun (Open MPI) 5.0.3"\n' >"$tmp/ompi"
printf '#!/bin/sh\necho "HYDRA build details:"\necho "    Version:    4.0.2"\n' >"$tmp/hydra"
printf '#!/bin/sh\necho "slurm 22.05.8"\n' >"$tmp/srun"
chmod +x "$tmp/ompi" "$tmp/hydra" "$tmp/srun"
mkdir -p "$tmp/build"
echo "MPIEXEC_EXECUTABLE:FILEPATH=$tmp/hydra" >"$tmp/build/CMakeCache.txt"

# argv ENV...: "FLAVOUR ARGV..." of a 2-rank launch of `minigpu run x.yaml`, one thread a rank.
argv() {
  env "$@" MINIGPU_THREADS=1 MINIGPU_PROGRESS=lines bash -c \
    'source "$0/scripts/common.sh"; mpirun_argv 2 minigpu run x.yaml; echo "$MINIGPU_LAUNCHER_FLAVOUR ${MPIRUN_ARGV[*]}"' "$root"
}
expect() {  # NAME GOT WANT
  [ "$2" = "$3" ] || { echo "FAIL $1:"; echo "  got:  $2"; echo "  want: $3"; status=1; }
}
expect "Open MPI" "$(argv MINIGPU_MPIEXEC="$tmp/ompi")" \
  "openmpi env MINIGPU_PROGRESS=lines $tmp/ompi -n 2 --map-by slot:PE=1 --bind-to core -x OMP_NUM_THREADS=1 -x MINIGPU_PROGRESS minigpu run x.yaml"
expect "MPICH" "$(argv MINIGPU_MPIEXEC="$tmp/hydra")" \
  "mpich env MINIGPU_PROGRESS=lines $tmp/hydra -n 2 -bind-to core:1 -genv OMP_NUM_THREADS 1 minigpu run x.yaml"
expect "srun" "$(argv MINIGPU_MPIEXEC="$tmp/srun")" \
  "other env MINIGPU_PROGRESS=lines $tmp/srun -n 2 minigpu run x.yaml"
expect "the build's launcher" "$(argv MINIGPU_MPIEXEC= MINIGPU_BUILD_DIR="$tmp/build")" \
  "mpich env MINIGPU_PROGRESS=lines $tmp/hydra -n 2 -bind-to core:1 -genv OMP_NUM_THREADS 1 minigpu run x.yaml"
[ "$status" -eq 0 ] && echo "ok: Open MPI, MPICH and srun each get only the options they accept"
exit $status
