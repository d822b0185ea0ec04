# Which minigpu binary a Slurm job runs, shared by minigpu.sbatch and sweep.sh. Sourced.
#   minigpu_binary ROOT WANTS_GPU   prints the binary, or says why there is none and fails
# MINIGPU_BIN wins; in an install (ROOT is share/minigpu) the installed bin/minigpu; else a GPU
# job takes the GPU build for the node's GPUs -- the HIP build (build-hip/, scripts/gpu/build_hip.sh)
# where the node has AMD's /dev/kfd (MINIGPU_GPU_VENDOR=amd|nvidia says so instead), else the
# CUDA build (build-cuda/, scripts/gpu/build_cuda.sh) -- and a CPU job the host build (build/),
# each falling back to the others. A GPU job never runs a host-only binary: that would compute
# on the CPU without a word.
# Sourced, not run.

# "Cuda", "HIP", "SYCL" or "none": the GPU backend a binary was built with, read from the
# marker it carries (core/backend.cpp), without running it.
minigpu_gpu_backend() {
  local marker
  marker="$(grep -a -o -m 1 'minigpu-gpu-backend:[A-Za-z]*' "$1" 2>/dev/null | head -n 1)"
  echo "${marker#minigpu-gpu-backend:}"
}

minigpu_binary() {
  local root="$1" wants_gpu="$2" bin=""
  if [ -n "${MINIGPU_BIN:-}" ]; then
    bin="$MINIGPU_BIN"
  else
    local gpu_builds=("$root/build-cuda/src/minigpu" "$root/build-hip/src/minigpu")
    case "${MINIGPU_GPU_VENDOR:-}" in
      amd) gpu_builds=("$root/build-hip/src/minigpu" "$root/build-cuda/src/minigpu") ;;
      nvidia) ;;
      *) [ -e /dev/kfd ] && gpu_builds=("$root/build-hip/src/minigpu" "$root/build-cuda/src/minigpu") ;;
    esac
    local order=("$root/build/src/minigpu" "${gpu_builds[@]}")
    [ "$wants_gpu" = 1 ] && order=("${gpu_builds[@]}" "$root/build/src/minigpu")
    local layout="$root/slurm/install_layout.sh" MINIGPU_BINDIR_FROM_DATA=""
    if [ -f "$layout" ]; then
      # shellcheck source=/dev/null
      source "$layout"
      order=("$(cd "$root/$MINIGPU_BINDIR_FROM_DATA" 2>/dev/null && pwd)/minigpu")
    fi
    for candidate in "${order[@]}"; do
      if [ -x "$candidate" ]; then
        bin="$candidate"
        break
      fi
    done
  fi
  if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "no minigpu binary (${bin:-none in $root/build-cuda, build-hip or build or an install}): build it (scripts/gpu/build_cuda.sh or build_hip.sh for GPUs," \
      "scripts/run.sh for CPUs), or set MINIGPU_ROOT or MINIGPU_BIN" >&2
    return 2
  fi
  local backend
  backend="$(minigpu_gpu_backend "$bin")"
  if [ "$wants_gpu" = 1 ] && [ "${backend:-none}" = none ]; then
    echo "$bin is a host-only build (no GPU backend), but this job asks for GPUs: it would run on the" \
      "CPU. Build for GPUs with scripts/gpu/build_cuda.sh (build-cuda/) or build_hip.sh (build-hip/), or set MINIGPU_BIN to a GPU build" >&2
    return 2
  fi
  echo "$bin"
}
