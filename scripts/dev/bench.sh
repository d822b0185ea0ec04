#!/usr/bin/env bash
# Benchmarks with targets, each measured against a reference run in the same process or job
# (never a timed unit test). Usage: scripts/dev/bench.sh [RANKS]   (default 2; emulated GPUs on
# GPU-less hosts). Exits non-zero when any ratio misses its bar.
#   the peers at their best: OpenBLAS with its own kernels for this CPU where a child process
#   verified them (an OPENBLAS_CORETYPE in the environment is dropped for this command only)
#   kernel pairs (tests/bench/minigpu_bench.cpp, one thread; scripts/dev/bench_report.py checks):
#     gemm vendor / direct BLAS call, n = 64..2048, both dtypes      bar >= 0.95
#     gemm native / direct BLAS call, n = 512..2048, both dtypes     bar >= 0.90 (target 1.0)
#       the same with every core (a threaded build)                  bar >= 0.90 (target 1.0)
#     gemm native, 1 thread -> every core, n = 2048: efficiency      bar >= 0.90
#     gemm auto / best of (vendor, native), n = 64..2048, both dtypes bar >= 0.95
#     logging step / (BLAS gemm + norm)                              bar <= 1.10
#     fused lazy chain / memcpy and / STREAM triad bandwidth         bar >= 0.80
#     Kokkos::deep_copy / memcpy, host buffers, 1 MiB .. 1 GiB       bar >= 0.90
#   the chapter against PyTorch on this CPU (scripts/torch_reference.py and torch_compare.py,
#   Debian's python3-torch, one thread each; skipped with a message where torch is missing):
#     logging step / PyTorch step, n = 100, 1000 steps, both modes   bar <= 0.80 (goal 0.60)
#     miniGPU / PyTorch GFLOP/s, inputs/matmul.yaml's n on the cpu   goal >= 1.0 (shown, no bar)
#   MPI studies (findings of real runs):
#     multi_gpu_concurrency: k GPUs at once vs one GPU in turn       target efficiency >= 90 %
#     matmul_scaling strong, n = 2048: 2 ranks vs 1 rank             target efficiency >= 75 %
#     SUMMA overlapped / blocking, n = 4096, p = 2 (scripts/dev/bench_scaling.py)   bar <= 1.0
#     SUMMA's exposed share of its communication, same runs          bar <= 50 %
#     every scaling row's model error, n >= 1024, reliable rows      bar |error| <= 20 %
#     matmul_scaling SUMMA / ScaLAPACK PxGEMM, p = 2, n = 2048 and 4096, both dtypes
#                                                                    bar <= 0.9 (goal <= 0.6)
# MINIGPU_BENCH_REPETITIONS (default 5) sets Google Benchmark's repetitions per row.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
ranks="${1:-2}"
install_packages "${MINIGPU_PACKAGES[@]}"
configure_and_build
out="$(mktemp -d)"
status=0

# The peers at their best on this CPU. OpenBLAS picks the kernel set for the CPU it runs on
# unless OPENBLAS_CORETYPE names one; environments set it where older OpenBLAS builds crash or
# compute wrong results on newer CPUs, so it is dropped for this command only, and only once a
# child process has verified GEMMs through that kernel set (inputs/matmul.yaml's `vendor` rows,
# each checked against an independent reference). miniGPU's `vendor` then calls the same kernels.
if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
  if env -u OPENBLAS_CORETYPE -u MINIGPU_EMULATE_GPUS "$MINIGPU_BUILD/src/minigpu" run \
      "$MINIGPU_ROOT/inputs/matmul.yaml" --set experiments.matmul.variants=[vendor] \
      --output-dir "$out/blas_check" >"$out/blas_check.txt" 2>&1; then
    log "OpenBLAS's own kernels for this CPU verified: the benchmarks run without OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE"
    unset OPENBLAS_CORETYPE
  else
    log "OpenBLAS's own kernels failed their check here (see $out/blas_check.txt): keeping OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE"
  fi
fi
cores="$(nproc)"
log "kernel pairs: $MINIGPU_BUILD/tests/minigpu_bench -> $out/kernels.json (1 thread), kernels_all.json ($cores)"
"$MINIGPU_BUILD/tests/minigpu_bench" --benchmark_repetitions="${MINIGPU_BENCH_REPETITIONS:-5}" \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/kernels.json" --benchmark_out_format=json >"$out/kernels.txt" || status=1
# The GEMM pairs again with every core, in Kokkos and the BLAS alike.
"$MINIGPU_BUILD/tests/minigpu_bench" --kokkos-num-threads="$cores" \
  --benchmark_filter='^gemm/.*/n:(512|1024|2048)/(blas|native)/' \
  --benchmark_repetitions="${MINIGPU_BENCH_REPETITIONS:-5}" --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/kernels_all.json" --benchmark_out_format=json \
  >"$out/kernels_all.txt" || status=1
python3 "$MINIGPU_ROOT/scripts/dev/bench_report.py" "$out/kernels.json" --threads "$out/kernels_all.json" || status=1
# One rank on the CPU against the same loops in PyTorch (Debian's python, where apt puts torch).
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  for input in logging matmul; do
    log "PyTorch: inputs/$input.yaml with miniGPU and scripts/torch_reference.py, one thread each"
    if env -u MINIGPU_EMULATE_GPUS OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$MINIGPU_BUILD/src/minigpu" run \
        "$MINIGPU_ROOT/inputs/$input.yaml" --output-dir "$out/torch_$input" >"$out/torch_$input.txt" 2>&1 &&
      /usr/bin/python3 "$MINIGPU_ROOT/scripts/torch_reference.py" "$MINIGPU_ROOT/inputs/$input.yaml" \
        "$out/torch_$input.csv" --device cpu --threads 1 >>"$out/torch_$input.txt" 2>&1; then
      python3 "$MINIGPU_ROOT/scripts/torch_compare.py" "$out"/torch_"$input"/*/results.csv "$out/torch_$input.csv" \
        --bench || status=1
    else
      log "FAIL PyTorch rows ($input): a run failed; see $out/torch_$input.txt"
      status=1
    fi
  done
else
  log "skipped the PyTorch rows: /usr/bin/python3 cannot import torch (apt-get install python3-torch)"
fi
# Without a GPU backend, each rank owns one host-emulated GPU (said in every printout).
if ! "$MINIGPU_BUILD/src/minigpu" devices | grep -q 'num_gpus()      = [1-9]'; then
  export MINIGPU_EMULATE_GPUS="$ranks"
fi
log "BLAS/CPU environment: OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}; compare only runs from one environment"

check() {  # check INPUT FINDING_PREFIX TARGET_PERCENT
  local input="$1" prefix="$2" target="$3"
  mpirun_n "$ranks" "$MINIGPU_BUILD/src/minigpu" run "$MINIGPU_ROOT/inputs/$input" --output-dir "$out/$input" >/dev/null
  python3 - "$out/$input" "$prefix" "$target" <<'PY' || status=1
import glob, json, sys
run_dir = glob.glob(sys.argv[1] + "/*/run.json")[0]
record = json.load(open(run_dir))
prefix, target = sys.argv[2], float(sys.argv[3])
found = [f for f in record["findings"] if f["name"].startswith(prefix)]
if not found:
    print(f"FAIL {prefix}: no such finding in {run_dir}"); sys.exit(1)
ok = True
for f in found:
    verdict = "PASS" if f["value"] >= target else "FAIL"
    ok = ok and verdict == "PASS"
    print(f"{verdict} {f['experiment']}.{f['name']} = {f['value']:.1f} {f['unit']} (target >= {target:g}) [{f['note']}]")
sys.exit(0 if ok else 1)
PY
}
check multi_gpu_concurrency.yaml efficiency_ 90
check matmul_strong_scaling_2048.yaml efficiency_ 75
# miniGPU's SUMMA over the library a user would otherwise call, in one job per n: each ratio
# must stay at or below the bar.
check_at_most() {  # check_at_most LABEL INPUT FINDING_PREFIX BAR GOAL [minigpu run args...]
  local label="$1" input="$2" prefix="$3" bar="$4" goal="$5"
  shift 5
  if ! mpirun_n "$ranks" "$MINIGPU_BUILD/src/minigpu" run "$MINIGPU_ROOT/inputs/$input" \
    --output-dir "$out/$label" "$@" >"$out/$label.txt" 2>&1; then
    log "FAIL $prefix ($label): the run failed; see $out/$label.txt"
    status=1
    return
  fi
  python3 - "$out/$label" "$prefix" "$bar" "$goal" <<'PY' || status=1
import glob, json, sys
run_json = glob.glob(sys.argv[1] + "/*/run.json")[0]
record = json.load(open(run_json))
prefix, bar, goal = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
found = [f for f in record["findings"] if f["name"].startswith(prefix)]
if not found:
    print(f"FAIL {prefix}: no such finding in {run_json}"); sys.exit(1)
ok = True
for f in found:
    verdict = "PASS" if f.get("value") is not None and f["value"] <= bar else "FAIL"
    ok = ok and verdict == "PASS"
    met = "goal met" if verdict == "PASS" and f["value"] <= goal else f"goal <= {goal:g} not met"
    flag = "" if f.get("reliable", True) else f" (unreliable: {f.get('unreliable_because')})"
    print(f"{verdict} {f['experiment']}.{f['name']} = {f.get('value') if f.get('value') is None else format(f['value'], '.4f')} {f['unit']} (bar <= {bar:g}; {met}){flag} [{f['note']}]")
sys.exit(0 if ok else 1)
PY
}
check_at_most summa_vs_scalapack_2048 matmul_vs_scalapack.yaml summa_over_scalapack_ 0.9 0.6
check_at_most summa_vs_scalapack_4096 matmul_vs_scalapack.yaml summa_over_scalapack_ 0.9 0.6 \
  --set experiments.matmul_scaling.n=4096
# SUMMA with and without overlap at n = 4096, p = 2, both dtypes: overlapped / blocking time
# (bar <= 1.0) and the share of the communication it exposes (bar <= 50 %), beside the model's.
log "summa overlap: inputs/summa_overlap_4096.yaml on $ranks ranks"
if mpirun_n "$ranks" "$MINIGPU_BUILD/src/minigpu" run "$MINIGPU_ROOT/inputs/summa_overlap_4096.yaml" \
  --output-dir "$out/summa_overlap_4096" >"$out/summa_overlap_4096.txt" 2>&1; then
  python3 "$MINIGPU_ROOT/scripts/dev/bench_scaling.py" overlap "$out/summa_overlap_4096" || status=1
else
  log "FAIL summa overlap: the run failed; see $out/summa_overlap_4096.txt"
  status=1
fi
# Every scaling row of those runs beside its α–β–γ model: |model_error_pct| <= 20 % where n >= 1024.
python3 "$MINIGPU_ROOT/scripts/dev/bench_scaling.py" model "$out/matmul_strong_scaling_2048.yaml" \
  "$out/summa_vs_scalapack_2048" "$out/summa_vs_scalapack_4096" "$out/summa_overlap_4096" || status=1
log "run records kept in $out"
exit $status
