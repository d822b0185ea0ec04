# OpenBLAS at its best on this CPU, for scripts/dev/bench.sh only (sourced after common.sh).
# OpenBLAS picks a kernel set from the CPU model unless OPENBLAS_CORETYPE names one, and both can
# be wrong: 0.3.21 does not know recent Xeons (model 207) and falls back to its SSE3 "Prescott"
# kernels, and some environments set OPENBLAS_CORETYPE=Haswell on AVX-512 CPUs because older
# builds crashed or computed wrong results there. So each candidate this CPU's flags allow is
# run in a child `minigpu run` of inputs/matmul.yaml's `vendor` rows (each product verified
# against an independent reference) and timed there; the fastest verified one serves the
# benchmark. The environment a user gave ctest, CI or `minigpu run` is never touched.
# Sourced, not run.

# OpenBLAS's own choice ("auto": the variable unset), then the sets this CPU can run, widest first.
openblas_candidates() {
  local flags
  flags=" $(grep -m 1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
  echo auto
  [[ $flags == *" avx512_bf16 "* ]] && echo Cooperlake
  [[ $flags == *" avx512f "* && $flags == *" avx512bw "* && $flags == *" avx512vl "* ]] && echo SkylakeX
  [[ $flags == *" avx2 "* && $flags == *" fma "* ]] && echo Haswell
  return 0
}

# Exports the fastest verified OPENBLAS_CORETYPE (or unsets it for OpenBLAS's own choice) and sets
# BLAS_KERNEL_SET to what OpenBLAS then reports; prints a line per candidate. Children write to DIR.
#   choose_openblas_at_best MINIGPU DIR
choose_openblas_at_best() {
  local minigpu="$1" dir="$2" best="" best_score=0 candidate line
  for candidate in $(openblas_candidates); do
    local env_args=(-u OPENBLAS_CORETYPE)
    [ "$candidate" = auto ] || env_args=(OPENBLAS_CORETYPE="$candidate")
    if ! env -u MINIGPU_EMULATE_GPUS "${env_args[@]}" "$minigpu" run "$MINIGPU_ROOT/inputs/matmul.yaml" \
        --set 'experiments.matmul.variants=[vendor]' --set 'experiments.matmul.devices=[cpu]' \
        --set 'experiments.matmul.sizes=[64,1024]' --output-dir "$dir/blas_$candidate" \
        >"$dir/blas_$candidate.txt" 2>&1; then
      log "OpenBLAS kernels '$candidate': FAILED their check here (see $dir/blas_$candidate.txt): not used"
      continue
    fi
    # The kernel set OpenBLAS reports and the n = 1024 rates (float32 + float64, GFLOP/s).
    line="$(python3 - "$dir/blas_$candidate" <<'PY'
import csv, glob, json, sys
run = glob.glob(sys.argv[1] + "/*/")[0]
blas = json.load(open(run + "run.json")).get("blas", {})
rates = {r["dtype"]: float(r["gflops"]) for r in csv.DictReader(open(run + "results.csv"))
         if r.get("n") == "1024" and r.get("verified") == "true"}
print(f"{rates.get('float32', 0) + rates.get('float64', 0):.1f} {blas.get('core', '?')} "
      f"sgemm {rates.get('float32', 0):.1f} dgemm {rates.get('float64', 0):.1f} GFLOP/s")
PY
)" || line="0 ? (no rates)"
    log "OpenBLAS kernels '$candidate' (${line#* }): verified"
    if awk -v s="${line%% *}" -v b="$best_score" 'BEGIN { exit !(s > b) }'; then
      best="$candidate" best_score="${line%% *}" BLAS_KERNEL_SET="$(echo "$line" | cut -d' ' -f2)"
    fi
  done
  if [ -z "$best" ]; then
    log "no OpenBLAS kernel set verified here: the benchmarks keep the environment's"
    BLAS_KERNEL_SET="as configured (unverified)"
  elif [ "$best" = auto ]; then
    unset OPENBLAS_CORETYPE
  else
    export OPENBLAS_CORETYPE="$best"
  fi
  log "OpenBLAS at its best here: ${BLAS_KERNEL_SET} kernels (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}), for this command only"
}
