#!/usr/bin/env bash
# GPU validation on a node with NVIDIA GPU(s), in the priority order of ../shared/GPU_OWED.md:
#   scripts/gpu/gpu_check.sh [--prebuilt DIR | --bundle DIR] [--deadline SECONDS] [--out DIR]
#                            [--only STEP,... | --rerun STEPS_TSV] [--rehearsal]
# --prebuilt DIR  run from binaries packed elsewhere (scripts/gpu/pack_prebuilt.sh: minigpu, the
#                 GPU test executables, cuda_reference, MPI in DIR/bundle): no build on the node.
# --bundle DIR    build here (build-cuda/) from a bundle (scripts/gpu/gpu_bundle.sh) on a node
#                 with only CUDA, CMake and a compiler; with neither, build with the node's own.
# --deadline S    finish within S seconds of starting: a step that would cross the deadline (its
#                 estimate, from the H100 run) is skipped and listed as skipped, a step that
#                 overruns is stopped; the report is always written.
# --out DIR       where the results go, at most 8 files (default results/gpu_check-<stamp>):
#                 report.md (the steps and what each measured), steps.tsv, gpus.csv and
#                 all.tar.gz (every log, run directory, reference and profile).
# --only STEPS    run only these steps (names as in steps.tsv); the others are listed as not asked
# --rerun TSV     run only the steps that did not pass in an earlier steps.tsv (skipped, failed,
#                 timed out): a second slot picks up where the first one's deadline stopped it
# --rehearsal     the CI dress rehearsal with a host build (tests/gpu/check_gpu_check.sh): every
#                 step on emulated GPUs at tiny sizes, same order, deadline, report and files.
# Steps: preflight (nvidia-smi, the binaries load, minigpu devices on 1 and 2 ranks); the GEMM
# tests; matmul to n = 10000 beside cuBLAS called directly (tests/gpu/cuda_reference) and the
# CUDA cores' FMA peak with the SM clock it held (cuda_reference fma, nvidia-smi); matmul in
# float64, float32, TF32, bfloat16 and float16 (inputs/matmul_low_precision_gpu.yaml); logging
# and lazy; 2 ranks on one GPU (transfer, strong scaling, concurrency); transfers and
# concurrency on every GPU; the other GPU tests; matmul on values in [0, 1) (data: uniform)
# beside the small integers; PyTorch's column; one ncu of the native kernel.
# Ranks get the node's cores as scripts/run.sh lays them out. Environment: KOKKOS_ROOT,
# KOKKOS_SRC, KOKKOS_ARCH (scripts/gpu/cuda_kokkos.sh), MINIGPU_TORCH_PYTHON (a python with a
# CUDA PyTorch; default python3). Exits 1 if a step failed, 0 otherwise (skips included).
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

usage() {
  echo "usage: $0 [--prebuilt DIR | --bundle DIR] [--deadline SECONDS] [--out DIR] [--only STEP,... | --rerun STEPS_TSV] [--rehearsal]" >&2
  exit 2
}
bundle="" prebuilt="" deadline=86400 rehearsal=0 only=""
out="$MINIGPU_ROOT/results/gpu_check-$(date -u +%Y%m%dT%H%M%SZ)"
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) [ $# -ge 2 ] || usage; bundle="$2"; shift 2 ;;
    --prebuilt) [ $# -ge 2 ] || usage; prebuilt="$(cd "$2" && pwd)" || usage; shift 2 ;;
    --deadline) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage; deadline="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
    --only) [ -n "${2:-}" ] || usage; only=",$2,"; shift 2 ;;
    --rerun)
      [ -f "${2:-}" ] || usage
      only=",$(awk -F'\t' 'NR > 1 && $2 != "passed" { printf "%s,", $1 }' "$2")"
      shift 2 ;;
    --rehearsal) rehearsal=1; shift ;;
    -h | --help) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
[ -z "$bundle" ] || [ -z "$prebuilt" ] || usage
start=$SECONDS
reserve=20  # seconds kept for the report and the archive
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$out/all"
rm -rf "$work" && mkdir -p "$work"
scratch="$(mktemp -d)"
printf 'step\tstatus\tseconds\tnote\n' >"$work/steps.tsv"
failed=0
record() {  # record STEP STATUS SECONDS NOTE: a line of steps.tsv; a failure fails the check
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$work/steps.tsv"
  log "$1: $2${4:+ ($4)}"
  case "$2" in failed | "timed out") failed=1 ;; esac
}
# deadline_run SECONDS COMMAND...: the command (a shell function too) in a process group of its
# own, so that stopping it at SECONDS stops mpirun and its ranks with it; 124 when stopped.
deadline_run() {
  local limit="$1" pid waited=0
  shift
  set -m
  "$@" </dev/null &
  pid=$!
  set +m
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$waited" -ge "$limit" ]; then
      kill -TERM -- "-$pid" 2>/dev/null
      sleep 5
      kill -KILL -- "-$pid" 2>/dev/null
      wait "$pid"
      return 124
    fi
    sleep 1
    waited=$((waited + 1))
  done
  wait "$pid"
}
# step NAME ESTIMATE COMMAND...: runs unless ESTIMATE seconds would cross the deadline, stopped
# if it runs into the reserve, logging to all/NAME.log.
# The build and the preflight always run; PyTorch's steps go by the name "torch" too.
selected() { [ -z "$only" ] || [[ "$only" == *",$1,"* || "$1" == build || "$1" == preflight || ( "$1" == torch_* && "$only" == *",torch,"* ) ]]; }
step() {
  local name="$1" estimate="$2" left began rc
  shift 2
  selected "$name" || { record "$name" skipped "-" "not asked for (--only, --rerun)"; return 0; }
  left=$((deadline - reserve - (SECONDS - start)))
  if [ "$estimate" -gt "$left" ]; then
    record "$name" skipped "-" "would cross the deadline: about $estimate s, $((left > 0 ? left : 0)) s left"
    return 0
  fi
  began=$SECONDS
  rc=0
  deadline_run "$left" "$@" >"$work/$name.log" 2>&1 || rc=$?  # a failed step must not end the check
  if [ "$rc" -eq 0 ]; then
    record "$name" passed $((SECONDS - began)) ""
  elif [ "$rc" -eq 124 ]; then
    record "$name" "timed out" $((SECONDS - began)) "stopped at the deadline; log all/$name.log"
  else
    record "$name" failed $((SECONDS - began)) "exit $rc; log all/$name.log"
    tail -n 15 "$work/$name.log" >&2
  fi
}
not_run() { selected "$1" && record "$1" skipped "-" "$2" || record "$1" skipped "-" "not asked for (--only, --rerun)"; }

# The report and the archive, whatever happened before: at most 8 files in OUT.
finish() {
  /usr/bin/env python3 "$MINIGPU_ROOT/scripts/gpu/gpu_report.py" "$work" >"$out/report.md" 2>"$work/report.log" ||
    record report failed 0 "$(tail -n 1 "$work/report.log")"
  cp "$work/steps.tsv" "$out/steps.tsv"
  [ -f "$work/gpus.csv" ] && cp "$work/gpus.csv" "$out/gpus.csv"
  tar -C "$out" -czf "$out/all.tar.gz" all && rm -rf "$work"
  rm -rf "$scratch"
  cat "$out/report.md"
  log "results in $out ($(ls "$out" | wc -l) files), $((SECONDS - start)) s"
  exit "$failed"
}
trap finish EXIT

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
smi=nvidia-smi
if [ "$rehearsal" -eq 1 ]; then
  export MINIGPU_EMULATE_GPUS=1  # host memory as one GPU: every step has a device to run on
fi
command -v "$smi" >/dev/null || { record preflight failed 0 "no nvidia-smi on the PATH"; exit 1; }
"$smi" --query-gpu=index,name,compute_cap,driver_version,memory.total --format=csv,noheader >"$work/gpus.csv"
gpus="$(wc -l <"$work/gpus.csv")"
first_gpu="$(head -n 1 "$work/gpus.csv" | cut -d, -f1 | tr -d ' ')"

# The binaries: packed, or built here for the architecture nvidia-smi reports.
if [ -n "$prebuilt" ]; then
  if [ -d "$prebuilt/bundle" ]; then
    source "$MINIGPU_ROOT/scripts/gpu/bundle_env.sh" "$prebuilt/bundle"
    # The bundle's mpirun, the MPI the binaries link (not a build/ tree's launcher: scripts/common.sh).
    MINIGPU_MPIEXEC="$(command -v mpirun)"
    export MINIGPU_MPIEXEC
  fi
  minigpu="$prebuilt/bin/minigpu" tests="$scratch/tests"  # unpacked outside OUT: only results travel back
  tar -C "$scratch" -xJf "$prebuilt/tests.tar.xz"
else
  [ -z "$bundle" ] || source "$MINIGPU_ROOT/scripts/gpu/bundle_env.sh" "$bundle"
  source "$MINIGPU_ROOT/scripts/gpu/cuda_kokkos.sh"
  cc="$(head -n 1 "$work/gpus.csv" | cut -d, -f3 | tr -d ' .')"
  declare -A arch_of=([70]=VOLTA70 [75]=TURING75 [80]=AMPERE80 [86]=AMPERE86 [89]=ADA89 [90]=HOPPER90
                      [100]=BLACKWELL100 [120]=BLACKWELL120)
  export KOKKOS_ARCH="${KOKKOS_ARCH:-${arch_of[$cc]:-}}"
  [ -n "$KOKKOS_ARCH" ] || { record build failed 0 "no Kokkos architecture for compute capability $cc: set KOKKOS_ARCH"; exit 1; }
  build="${MINIGPU_CUDA_BUILD_DIR:-$MINIGPU_ROOT/build-cuda}"
  build_all() { build_project_with_cuda "$(ensure_cuda_kokkos)" "$build"; }
  step build 600 build_all
  minigpu="$build/src/minigpu" tests="$build/tests"
fi
[ -x "$minigpu" ] || { record preflight failed 0 "no minigpu at $minigpu"; exit 1; }

# run_input NAME RANKS DIR [ARGS...]: minigpu on inputs/NAME.yaml, ranks laid out as run.sh does.
declare -A tiny=(  # --rehearsal: each input at a size a 2-core CI machine runs in seconds
  [matmul_gpu]="--set experiments.matmul.sizes=[16,64] --set experiments.matmul.cpu_max_size=64"
  # No cuBLAS on emulated GPUs (host memory): the Kokkos kernel alone, in each precision.
  [matmul_low_precision_gpu]="--set experiments.matmul.sizes=[16,64] --set experiments.matmul.variants=[tiled]"
  [logging_gpu]="--set experiments.logging.steps=20"
  [lazy_gpu]="--set experiments.lazy.elements=1e5"
  [transfer_gpu]="--set experiments.transfer.sizes=[4KiB,64KiB] --set experiments.transfer.rank_sizes=[8,8KiB]"
  [multi_gpu_concurrency_gpu]="--set experiments.multi_gpu_concurrency.n=64"
  [matmul_strong_scaling_gpu]="--set experiments.matmul_scaling.n=128"
)
run_input() {
  local name="$1" ranks="$2" dir="$3" extra=()
  shift 3
  [ "$rehearsal" -eq 1 ] && read -r -a extra <<<"--repetitions 1 --warmups 0 --set run.require_gpu=false ${tiny[$name]}"
  mpirun_n "$ranks" "$minigpu" run "$MINIGPU_ROOT/inputs/$name.yaml" --output-dir "$work/$dir" "${extra[@]}" "$@"
}
gtests() {  # gtests EXECUTABLE...: each one's GPU cases (ctest -L gpu runs them the same way)
  local t rc=0
  for t in "$@"; do
    [ -x "$tests/$t" ] || { echo "no $tests/$t"; rc=1; continue; }
    echo "== $t" && "$tests/$t" '--gtest_filter=*/gpu*' || rc=1
  done
  return $rc
}
preflight() {
  cat "$work/gpus.csv" && "$minigpu" --version || return 1
  ! ldd "$minigpu" | grep 'not found' || return 1
  mpirun_n 1 "$minigpu" devices && mpirun_n 2 "$minigpu" devices
}
shared() { CUDA_VISIBLE_DEVICES="$first_gpu" run_input "$1" 2 shared; }
# The CUDA cores' FMA peak measured apart from miniGPU, with the SM clock it held (in the kernel,
# and nvidia-smi's every 50 ms beside it): is a peak below the datasheet's the clock or the issue?
fma_clocks() {
  local sampler rc=0
  "$smi" --query-gpu=timestamp,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader,nounits \
    -lms 50 >"$work/clocks.csv" &
  sampler=$!
  "$tests/cuda_reference" fma >"$work/fma_reference.json" || rc=$?
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  cat "$work/fma_reference.json"
  return "$rc"
}

log "$gpus GPU(s); results in $out; deadline ${deadline} s"
step preflight 20 preflight
step gemm_tests 60 gtests test_matmul test_tensor
if [ -x "$tests/cuda_reference" ]; then
  step reference 45 "$tests/cuda_reference" $((1 << 28)) 4096 10000 1024
  [ -f "$work/reference.log" ] && cp "$work/reference.log" "$work/reference.json"
  step clocks 20 fma_clocks
else
  not_run reference "no cuda_reference in this build (CUDA only)"
  not_run clocks "no cuda_reference in this build (CUDA only)"
fi
step matmul 150 run_input matmul_gpu "$gpus" runs
step matmul_low_precision 90 run_input matmul_low_precision_gpu "$gpus" runs
step logging 40 run_input logging_gpu "$gpus" runs
step lazy 30 run_input lazy_gpu "$gpus" runs
# Two ranks on the first GPU: the binding warns and every GPU row is flagged as sharing it.
for name in transfer_gpu matmul_strong_scaling_gpu multi_gpu_concurrency_gpu; do
  step "shared_$name" 90 shared "$name"
done
step transfer 90 run_input transfer_gpu "$gpus" runs
step multi_gpu_concurrency 40 run_input multi_gpu_concurrency_gpu "$gpus" runs
step other_tests 90 gtests test_lazy test_logging test_linear test_devices_experiment test_multi_gpu_concurrency \
  test_transfer test_matmul_scaling
# Values in [0, 1) (data: uniform), as measured data and torch.rand's: float32 and float64 checked
# within their own rounding and timed beside the matmul step's small integers, which run a GPU at
# its power cap faster (cuBLAS DGEMM, n = 10000, H200: 64.0 against 55.5-56.2 TFLOP/s). Before
# PyTorch's column and ncu, which repeat what earlier GPU runs measured.
uniform_sizes="[4096,10000]"
[ "$rehearsal" -eq 1 ] && uniform_sizes="[16,64]"
step matmul_uniform 30 run_input matmul_gpu "$gpus" uniform --set run.name=matmul_uniform_gpu \
  --set experiments.matmul.data=uniform --set "experiments.matmul.sizes=$uniform_sizes" \
  --set 'experiments.matmul.devices=[gpu]' --set 'experiments.matmul.variants=[tiled,vendor]'
torch_python="${MINIGPU_TORCH_PYTHON:-python3}"
if "$torch_python" -c 'import sys, numpy, yaml, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
  mkdir -p "$work/torch"
  for name in matmul_low_precision_gpu matmul_gpu logging_gpu lazy_gpu transfer_gpu; do
    step "torch_$name" 60 "$torch_python" "$MINIGPU_ROOT/scripts/torch_reference.py" "$MINIGPU_ROOT/inputs/$name.yaml" \
      "$work/torch/$name.csv" --device cuda --k "$gpus"
  done
else
  not_run torch "$torch_python lacks numpy, yaml or a torch that sees CUDA (set MINIGPU_TORCH_PYTHON)"
fi
# One launch of the native float32 kernel at n = 4096: its achieved share of the SM's peak. The
# kernel is the functor GemmGpuBody<false, float> inside Kokkos's launch wrapper; ncu exits 0 when
# its filter matches no kernel, so the step fails unless a section was written (a kernel renamed
# once made it pass with nothing profiled, 2026-11-29).
ncu_native_gemm() {
  local log rc=0
  log="$(mktemp)"
  ncu --kernel-name-base demangled --kernel-name 'regex:GemmGpuBody<.bool.0, float' --launch-count 1 \
    --section SpeedOfLight --section Occupancy \
    "$minigpu" run "$MINIGPU_ROOT/inputs/matmul_gpu.yaml" --output-dir "$work/ncu_run" --repetitions 1 --warmups 0 \
    --set 'experiments.matmul.sizes=[4096]' --set 'experiments.matmul.variants=[tiled]' \
    --set 'experiments.matmul.devices=[gpu]' --set 'experiments.matmul.dtypes=[float32]' >"$log" 2>&1 || rc=$?
  cat "$log"
  if [ "$rc" -eq 0 ] && ! grep -q "Speed Of Light" "$log"; then
    echo "ncu profiled no GemmGpuBody<false, float> kernel (its name changed?)"
    rc=1
  fi
  rm -f "$log"
  return "$rc"
}
if command -v ncu >/dev/null; then
  step ncu 45 ncu_native_gemm  # 18 s on an H200 (2026-11-29)
else
  not_run ncu "no ncu on the PATH"
fi
exit "$failed"
