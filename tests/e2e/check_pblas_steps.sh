#!/usr/bin/env bash
# ctest pblas_steps: the real ScaLAPACK's PxGEMM makes the local products matmul_scaling's model
# of its `scalapack` rows assumes (perfmodel::pblas_k_steps, unit test PblasStepsOfK): one product
# of k = n where no operand spans two processes (one rank; k within the first block), steps of
# k = 32 otherwise (PBLAS's logical block, pilaenv), whatever the block size. Seen from outside by
# bench/pblas_steps.cpp, which times each local ?gemm_ call and records its k.
#   check_pblas_steps.sh MPIEXEC PBLAS_STEPS
set -euo pipefail
mpiexec="$1" probe="$2"
failed=0
# expect RANKS N NB PROWS PCOLS DTYPE "K K ..." ["K ..."]: rank 0 makes exactly those calls, and
# every other rank of the grid those of the last argument (default: the same; "" for none: a
# rank that holds no block of C when n fits in one block).
expect() {
  local ranks="$1" n="$2" nb="$3" rows="$4" cols="$5" dtype="$6" want0="$7" out line got want
  local others="${8-$7}"
  out="$("$mpiexec" -n "$ranks" "$probe" "$n" "$nb" "$rows" "$cols" 1 "$dtype" 2>&1)" || {
    echo "FAIL: $ranks rank(s), n=$n nb=$nb grid ${rows}x${cols} $dtype: the probe failed:"; echo "$out"; failed=1; return; }
  if [[ "$(grep -c '^rank ' <<<"$out")" != "$((rows * cols))" ]]; then
    echo "FAIL: $ranks rank(s), n=$n nb=$nb grid ${rows}x${cols}: not one line per rank of the grid:"; echo "$out"; failed=1; return
  fi
  while read -r line; do
    got="${line##*; k:}" got="${got# }" want="$others"
    [[ "$line" == "rank 0 "* ]] && want="$want0"
    if [[ "$got" != "$want" ]]; then
      echo "FAIL: n=$n nb=$nb grid ${rows}x${cols} $dtype: local products of k = [$got], the model says [$want]"
      echo "  $line"; failed=1
    else
      echo "ok: n=$n nb=$nb grid ${rows}x${cols} $dtype: k = [$got]"
    fi
  done < <(grep '^rank ' <<<"$out")
}
expect 1 256 64 1 1 float32 "256"                     # one rank: one local product
expect 2 48 64 1 2 float64 "48" ""                    # k within A's first block
expect 2 64 64 2 1 float32 "64" ""                    # ... or B's
expect 2 100 64 1 2 float32 "32 32 32 4"              # A spans the row: steps of 32, a ragged last
expect 2 100 64 2 1 float64 "32 32 32 4"              # B spans the column
expect 2 256 128 1 2 float32 "32 32 32 32 32 32 32 32"  # blocks wider than 32: still 32 a step
expect 4 96 16 2 2 float64 "32 32 32"                 # blocks narrower than 32: still 32 a step
exit "$failed"
