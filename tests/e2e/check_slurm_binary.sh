#!/usr/bin/env bash
# The Slurm scripts pick the GPU build (CUDA, or HIP on AMD nodes) for GPU jobs and refuse a host-only binary there
# (exit 2, nothing written), without a GPU or a Slurm cluster; and the real binary carries
# the marker of the GPU backend it was built with:
#   check_slurm_binary.sh MINIGPU REPO_ROOT EXPECTED_BACKEND     (none, Cuda, HIP or SYCL)
set -uo pipefail
real_bin="$1"
repo="$2"
expected_backend="$3"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# A repository copy whose only build is a host one (a stand-in carrying the marker: nothing
# here runs it).
mkdir -p "$tmp/root/build/src" "$tmp/root/scripts/slurm" "$tmp/root/inputs"
host_bin="$tmp/root/build/src/minigpu"
printf '#!/bin/sh\n# minigpu-gpu-backend:none\n' > "$host_bin"
chmod +x "$host_bin"
cp "$repo/scripts/slurm/"*.sh "$repo/scripts/slurm/minigpu.sbatch" "$tmp/root/scripts/slurm/"
cp "$repo/inputs/quickstart.yaml" "$tmp/root/inputs/"
source "$repo/scripts/slurm/find_binary.sh"

[ "$(minigpu_gpu_backend "$real_bin")" = "$expected_backend" ] ||
  fail "$real_bin carries the marker '$(minigpu_gpu_backend "$real_bin")', expected '$expected_backend'"
[ "$(minigpu_binary "$tmp/root" 0)" = "$tmp/root/build/src/minigpu" ] || fail "a CPU job does not get the host build"
msg="$(minigpu_binary "$tmp/root" 1 2>&1)"
rc=$?
[ $rc -eq 2 ] || fail "a GPU job with only a host build: exit $rc, expected 2"
[[ "$msg" == *"host-only build"*"build_cuda.sh"* ]] || fail "unclear refusal: $msg"

# A CUDA build beside it (a stand-in carrying the marker) is what a GPU job takes.
mkdir -p "$tmp/root/build-cuda/src"
printf '#!/bin/sh\n# minigpu-gpu-backend:Cuda\n' > "$tmp/root/build-cuda/src/minigpu"
chmod +x "$tmp/root/build-cuda/src/minigpu"
[ "$(minigpu_binary "$tmp/root" 1)" = "$tmp/root/build-cuda/src/minigpu" ] || fail "a GPU job does not get build-cuda/"
[ "$(minigpu_binary "$tmp/root" 0)" = "$tmp/root/build/src/minigpu" ] || fail "a CPU job does not keep the host build"
# A HIP build beside it: taken on AMD nodes (/dev/kfd, or MINIGPU_GPU_VENDOR=amd), the CUDA one on NVIDIA's.
mkdir -p "$tmp/root/build-hip/src"
printf '#!/bin/sh\n# minigpu-gpu-backend:HIP\n' > "$tmp/root/build-hip/src/minigpu"
chmod +x "$tmp/root/build-hip/src/minigpu"
[ "$(MINIGPU_GPU_VENDOR=amd minigpu_binary "$tmp/root" 1)" = "$tmp/root/build-hip/src/minigpu" ] ||
  fail "a GPU job on AMD GPUs does not get build-hip/"
[ "$(MINIGPU_GPU_VENDOR=nvidia minigpu_binary "$tmp/root" 1)" = "$tmp/root/build-cuda/src/minigpu" ] ||
  fail "a GPU job on NVIDIA GPUs does not get build-cuda/"
rm -rf "$tmp/root/build-cuda"
[ "$(MINIGPU_GPU_VENDOR=nvidia minigpu_binary "$tmp/root" 1)" = "$tmp/root/build-hip/src/minigpu" ] ||
  fail "a GPU job with only a HIP build does not fall back to it"
rm -rf "$tmp/root/build-hip"

# An install (cmake --install): share/minigpu/slurm/install_layout.sh leads to bin/minigpu,
# which is taken over any build tree, and is refused on a GPU job when host-only.
mkdir -p "$tmp/prefix/bin" "$tmp/prefix/share/minigpu/slurm"
echo 'MINIGPU_BINDIR_FROM_DATA="../../bin"' > "$tmp/prefix/share/minigpu/slurm/install_layout.sh"
cp "$host_bin" "$tmp/prefix/bin/minigpu"
[ "$(minigpu_binary "$tmp/prefix/share/minigpu" 0)" = "$tmp/prefix/bin/minigpu" ] ||
  fail "a CPU job in an install does not get its bin/minigpu"
msg="$(minigpu_binary "$tmp/prefix/share/minigpu" 1 2>&1)"
rc=$?
[ $rc -eq 2 ] && [[ "$msg" == *"host-only build"* ]] || fail "a GPU job with a host-only install: exit $rc: $msg"

# minigpu.sbatch run as a GPU job's batch script: refused before anything runs or is written.
out="$(cd "$tmp" && SLURM_GPUS_ON_NODE=1 SLURM_SUBMIT_DIR="$tmp" MINIGPU_ROOT="$tmp/root" \
  bash "$tmp/root/scripts/slurm/minigpu.sbatch" 2>&1)"
rc=$?
[ $rc -eq 2 ] || fail "minigpu.sbatch on a GPU job with a host build: exit $rc, expected 2: $out"
[[ "$out" == *"host-only build"* ]] || fail "minigpu.sbatch did not say why: $out"
[ ! -e "$tmp/results" ] || fail "minigpu.sbatch wrote results for a refused job"

# sweep.sh asked for GPUs per task: refused before any directory or job exists.
if command -v sbatch >/dev/null && command -v squeue >/dev/null && command -v scontrol >/dev/null; then
  out="$(cd "$tmp" && MINIGPU_ROOT="$tmp/root" MINIGPU_OUTPUT_DIR="$tmp/sweeps" \
    MINIGPU_SBATCH_ARGS="-p gpu --gpus-per-task=1" bash "$tmp/root/scripts/slurm/sweep.sh" \
    "$tmp/root/inputs/quickstart.yaml" 1 2 2>&1)"
  rc=$?
  [ $rc -eq 2 ] || fail "sweep.sh with --gpus-per-task and a host build: exit $rc, expected 2: $out"
  [[ "$out" == *"host-only build"* ]] || fail "sweep.sh did not say why: $out"
  [ ! -e "$tmp/sweeps" ] || fail "sweep.sh created directories for a refused sweep"
else
  echo "note: no Slurm client tools; sweep.sh not exercised"
fi
[ $failures -eq 0 ] && echo "PASS"
exit $((failures > 0))
