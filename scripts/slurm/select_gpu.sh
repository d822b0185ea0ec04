#!/usr/bin/env bash
# One GPU per task, chosen from the task's node-local id, as the wrappers in Alps's and LUMI's
# user guides do: every task of a node is handed all its GPUs and this wrapper leaves each
# task only its own (CUDA_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES), then runs the command.
# miniGPU then records "launcher: CUDA_VISIBLE_DEVICES=N" as the rank's binding rule.
#   srun --ntasks-per-node=4 scripts/slurm/select_gpu.sh build/src/minigpu run inputs/matmul_scaling.yaml
# The local id is SLURM_LOCALID under srun, OMPI_COMM_WORLD_LOCAL_RANK under Open MPI's mpirun,
# MPI_LOCALRANKID under MPICH's mpiexec. MINIGPU_GPU_MAP=4,5,2,3,6,7,0,1 (LUMI-G's GPU-to-NUMA
# order) gives local id i the GPU map[i mod its length].
# Without the wrapper miniGPU binds the same way itself (local rank, or MINIGPU_GPU_MAP) with
# every GPU left visible -- the way to run with GPU-aware MPI: a task that sees only its own GPU
# cannot map another task's memory (CUDA IPC), and miniGPU warns when it finds that.
# -h/--help: the header above (not through scripts/common.sh, which an install has no copy of).
case "${1:-}" in -h | --help) awk 'NR == 1 && /^#!/ { next } $0 != "#" && !/^# / { exit } { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -euo pipefail
[ "$#" -ge 1 ] || { echo "usage: select_gpu.sh COMMAND [ARGS...]" >&2; exit 2; }
local_id="${SLURM_LOCALID:-${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-}}}"
if [ -z "$local_id" ]; then
  echo "select_gpu.sh: no node-local id (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK or MPI_LOCALRANKID): run it under srun, mpirun or mpiexec" >&2
  exit 2
fi
gpu="$local_id"
if [ -n "${MINIGPU_GPU_MAP:-}" ]; then
  IFS=, read -r -a map <<<"$MINIGPU_GPU_MAP"
  for entry in "${map[@]}"; do
    [[ "$entry" =~ ^[0-9]+$ ]] || { echo "select_gpu.sh: MINIGPU_GPU_MAP='$MINIGPU_GPU_MAP' must be GPU indices separated by commas, e.g. 4,5,2,3,6,7,0,1" >&2; exit 2; }
  done
  gpu="${map[$((local_id % ${#map[@]}))]}"
fi
export CUDA_VISIBLE_DEVICES="$gpu" ROCR_VISIBLE_DEVICES="$gpu"
exec "$@"
