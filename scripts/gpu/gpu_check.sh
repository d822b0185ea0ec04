#!/usr/bin/env bash
# One-command GPU validation on a node with NVIDIA GPU(s):
#   scripts/gpu/gpu_check.sh [--bundle DIR] [--out DIR]
# 1. builds miniGPU for this GPU into build-cuda/ (a CUDA Kokkos from KOKKOS_ROOT, else built
#    once from KOKKOS_SRC or the bundle's source, for the architecture nvidia-smi reports);
# 2. runs the gpu-labelled tests on the GPU(s);
# 3. runs every GPU input (inputs/*_gpu.yaml), one rank per GPU, and the 2-rank ones again with
#    both ranks on one GPU (rows flagged as sharing it);
# 4. measures the same quantities without miniGPU (tests/gpu/cuda_reference: cudaMemcpy and
#    cuBLAS, timed with CUDA events) and, where PyTorch sees the GPU, the same inputs written
#    in PyTorch (scripts/torch_reference.py), and writes OUT/report.md: device, driver, copy
#    bandwidths, matmul TFLOP/s against cuBLAS and PyTorch, the chapter's rows against
#    PyTorch, the chapter's ratios, 1->N GPU efficiency.
# --bundle DIR: on a node with only the CUDA toolkit, CMake and a C++ compiler, take MPI,
# yaml-cpp, CLI11, nlohmann-json, GoogleTest, BLAS and the Kokkos source from a bundle made
# elsewhere by scripts/gpu/gpu_bundle.sh DIR (see scripts/gpu/bundle_env.sh).
# Environment: KOKKOS_ROOT, KOKKOS_SRC, KOKKOS_ARCH (see scripts/gpu/cuda_kokkos.sh),
# MINIGPU_GPU_TESTS (ctest arguments; default -L gpu), MINIGPU_TORCH_PYTHON (a python with a
# CUDA PyTorch; default python3). Exits non-zero if any step failed.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
source "$MINIGPU_ROOT/scripts/gpu/cuda_kokkos.sh"

bundle=""
out="$MINIGPU_ROOT/results/gpu_check-$(date -u +%Y%m%dT%H%M%SZ)"
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--bundle DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
if [ -n "$bundle" ]; then
  # shellcheck source=bundle_env.sh
  source "$MINIGPU_ROOT/scripts/gpu/bundle_env.sh" "$bundle"
fi
for tool in nvcc nvidia-smi cmake mpirun; do
  command -v "$tool" >/dev/null || { log "error: $tool not found (a bundle from scripts/gpu/gpu_bundle.sh brings MPI)"; exit 2; }
done
mkdir -p "$out"
failed=()
step() {  # step NAME COMMAND...: runs, logs to OUT/NAME.log, remembers a failure
  local name="$1"
  shift
  log "$name: $*"
  if ! "$@" >"$out/$name.log" 2>&1; then
    failed+=("$name")
    log "$name FAILED (log: $out/$name.log)"
    tail -n 25 "$out/$name.log" >&2
  fi
}

# The architecture Kokkos is built for, from the first GPU's compute capability.
nvidia-smi --query-gpu=index,name,compute_cap,driver_version,memory.total --format=csv,noheader >"$out/gpus.csv"
gpus="$(wc -l <"$out/gpus.csv")"
cc="$(head -n 1 "$out/gpus.csv" | cut -d, -f3 | tr -d ' .')"
declare -A arch_of=([70]=VOLTA70 [75]=TURING75 [80]=AMPERE80 [86]=AMPERE86 [89]=ADA89 [90]=HOPPER90
                    [100]=BLACKWELL100 [120]=BLACKWELL120)
export KOKKOS_ARCH="${KOKKOS_ARCH:-${arch_of[$cc]:-}}"
[ -n "$KOKKOS_ARCH" ] || { log "error: no Kokkos architecture known for compute capability $cc: set KOKKOS_ARCH"; exit 2; }
log "$gpus GPU(s), compute capability $cc -> Kokkos_ARCH_$KOKKOS_ARCH; results in $out"

build="${MINIGPU_CUDA_BUILD_DIR:-$MINIGPU_ROOT/build-cuda}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
kokkos_root="$(ensure_cuda_kokkos)" || exit 1
step build build_project_with_cuda "$kokkos_root" "$build"
if [[ " ${failed[*]} " == *" build "* ]]; then
  exit 1
fi
read -r -a test_args <<<"${MINIGPU_GPU_TESTS:--L gpu}"
step tests ctest --test-dir "$build" --output-on-failure --timeout 900 "${test_args[@]}"
step reference "$build/tests/cuda_reference" $((1 << 28)) 4096 10000
cp "$out/reference.log" "$out/reference.json"
for input in "$MINIGPU_ROOT"/inputs/*_gpu.yaml; do
  name="$(basename "$input" .yaml)"
  step "$name" mpirun -np "$gpus" --oversubscribe "$build/src/minigpu" run "$input" --output-dir "$out/runs"
done
# Two ranks bound to the one GPU (the first): rank-to-rank transfers of device memory, staged
# and direct, and the scaling studies on real hardware; the binding warns and every GPU row
# is flagged unreliable ("ranks 0 and 1 share one GPU"), as scripts/gpu/gpu_report.py checks.
first_gpu="$(head -n 1 "$out/gpus.csv" | cut -d, -f1 | tr -d ' ')"
for name in multi_gpu_concurrency_gpu matmul_strong_scaling_gpu transfer_gpu; do
  step "shared_$name" env CUDA_VISIBLE_DEVICES="$first_gpu" mpirun -np 2 --oversubscribe -x CUDA_VISIBLE_DEVICES \
    "$build/src/minigpu" run "$MINIGPU_ROOT/inputs/$name.yaml" --output-dir "$out/shared"
done
torch_python="${MINIGPU_TORCH_PYTHON:-python3}"
if "$torch_python" -c 'import sys, numpy, yaml, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
  mkdir -p "$out/torch"
  for input in "$MINIGPU_ROOT"/inputs/*_gpu.yaml; do
    name="$(basename "$input" .yaml)"
    step "torch_$name" "$torch_python" "$MINIGPU_ROOT/scripts/torch_reference.py" "$input" "$out/torch/$name.csv" \
      --device cuda --k "$gpus"
  done
else
  log "no PyTorch column: $torch_python lacks numpy, yaml or a torch that sees CUDA (set MINIGPU_TORCH_PYTHON)"
fi
/usr/bin/env python3 "$MINIGPU_ROOT/scripts/gpu/gpu_report.py" "$out" >"$out/report.md" || failed+=(report)
cat "$out/report.md"
if [ ${#failed[@]} -gt 0 ]; then
  log "FAILED: ${failed[*]} (logs in $out)"
  exit 1
fi
log "all steps passed; report: $out/report.md"
