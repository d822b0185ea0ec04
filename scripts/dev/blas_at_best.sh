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
# A set is scored on the shapes the bench compares against, both dtypes: the small products
# (n = 64, 128: only the AVX-512 sets have OpenBLAS's small-matrix path) and n = 1024. Its score is
# the geometric mean of its rate over the best candidate's rate at each shape, so no one shape's
# noise decides; a later (narrower) set must beat an earlier one by more than 1 % to be chosen.
# One n = 1024 timing once picked Haswell's AVX2 kernels by 0.9 %, which then stood in for the
# peer at n = 64 where they run a third slower than the small-matrix path.
#   choose_openblas_at_best MINIGPU DIR
choose_openblas_at_best() {
  local minigpu="$1" dir="$2" candidate verified=() failed=" " choice round
  # Two rounds, the candidates interleaved, each shape's best kept: a small product's rate
  # swings by up to 2x between runs of one kernel set on this VM.
  for round in 1 2; do
    for candidate in $(openblas_candidates); do
      [[ $failed == *" $candidate "* ]] && continue
      local env_args=(-u OPENBLAS_CORETYPE)
      [ "$candidate" = auto ] || env_args=(OPENBLAS_CORETYPE="$candidate")
      if env -u MINIGPU_EMULATE_GPUS "${env_args[@]}" "$minigpu" run "$MINIGPU_ROOT/inputs/matmul.yaml" \
          --set 'experiments.matmul.variants=[vendor]' --set 'experiments.matmul.devices=[cpu]' \
          --set 'experiments.matmul.sizes=[64,128,1024]' --set run.repetitions=30 \
          --output-dir "$dir/blas_$candidate/round$round" >"$dir/blas_$candidate.$round.txt" 2>&1; then
        [ "$round" = 1 ] && verified+=("$candidate")
      else
        log "OpenBLAS kernels '$candidate': FAILED their check here (see $dir/blas_$candidate.$round.txt): not used"
        failed+="$candidate "
      fi
    done
  done
  local kept=()
  for candidate in "${verified[@]}"; do [[ $failed == *" $candidate "* ]] || kept+=("$candidate"); done
  verified=("${kept[@]}")
  if [ ${#verified[@]} -eq 0 ]; then
    log "no OpenBLAS kernel set verified here: the benchmarks keep the environment's"
    BLAS_KERNEL_SET="as configured (unverified)"
    return 0
  fi
  # Prints a line per candidate, then "CHOICE candidate kernel-set".
  choice="$(python3 "$MINIGPU_ROOT/scripts/dev/blas_score.py" "$dir" "${verified[@]}")" || {
    log "the OpenBLAS kernel sets could not be scored (see $dir/blas_*.txt): the benchmarks keep the environment's"
    BLAS_KERNEL_SET="as configured (unscored)"
    return 0
  }
  while IFS= read -r line; do
    case "$line" in CHOICE\ *) ;; *) log "$line" ;; esac
  done <<<"$choice"
  read -r _ candidate BLAS_KERNEL_SET <<<"$(grep '^CHOICE ' <<<"$choice")"
  if [ "$candidate" = auto ]; then
    unset OPENBLAS_CORETYPE
  else
    export OPENBLAS_CORETYPE="$candidate"
  fi
  log "OpenBLAS at its best here: ${BLAS_KERNEL_SET} kernels (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}), for this command only"
}
