#!/usr/bin/env bash
# Each rank's GPU by the rules sites use, on two emulated GPUs (emulated GPUs honour
# CUDA_VISIBLE_DEVICES as CUDA does), 2 ranks, the rule recorded in run.json's rank map:
# - every GPU visible: the node-local rank chooses ("local rank: r mod 2");
# - scripts/slurm/select_gpu.sh (Alps's and LUMI's SLURM_LOCALID wrapper; here the launcher's
#   own local id): each rank sees one GPU as device 0 ("launcher: CUDA_VISIBLE_DEVICES=r"),
#   with no "ranks share" warning (one GPU each is not 2 ranks on 1 GPU);
# - MINIGPU_GPU_MAP=1,0 (a NUMA order): rank 0 on GPU 1, rank 1 on GPU 0;
# - the wrapper handing both ranks GPU 0: warned as sharing it;
# - a malformed MINIGPU_GPU_MAP: exit 2, one line naming it, no run directory.
# Usage: check_binding_rules.sh MPIEXEC MINIGPU INPUT
set -u
mpiexec="$1" minigpu="$2" input="$3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1 MINIGPU_EMULATE_GPUS=2
unset CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES MINIGPU_GPU_MAP
status=0

# run NAME EXPECTED... -- COMMAND PREFIX: runs the input on 2 ranks and checks rank r's
# (device_id, binding) against the r-th "ID|RULE".
run() {
  local name="$1" want=()
  shift
  while [ "$1" != -- ]; do want+=("$1"); shift; done
  shift
  if ! "$mpiexec" -n 2 "$@" "$minigpu" run "$input" --output-dir "$out/$name" >"$out/$name.log" 2>&1; then
    echo "FAIL $name: the run failed"; cat "$out/$name.log"; status=1; return
  fi
  /usr/bin/python3 - "$out/$name" "$name" "${want[@]}" <<'PY' || { cat "$out/$name.log"; status=1; }
import glob, json, sys
root, name, want = sys.argv[1], sys.argv[2], sys.argv[3:]
record = json.load(open(glob.glob(root + "/*/run.json")[0]))
got = [f"{r['device_id']}|{r['binding']}" for r in sorted(record["mpi"]["ranks"], key=lambda r: r["rank"])]
if got != want:
    sys.exit(f"FAIL {name}: ranks bound {got}, expected {want}")
print(f"{name}: {got}")
PY
}

run all_visible "0|local rank: 0 mod 2" "1|local rank: 1 mod 2" -- env
run wrapper "0|launcher: CUDA_VISIBLE_DEVICES=0" "0|launcher: CUDA_VISIBLE_DEVICES=1" -- "$root/scripts/slurm/select_gpu.sh"
if grep -q "share" "$out/wrapper.log"; then echo "FAIL wrapper: one GPU each warned as shared"; cat "$out/wrapper.log"; status=1; fi
run map "1|map: MINIGPU_GPU_MAP[0]=1" "0|map: MINIGPU_GPU_MAP[1]=0" -- env MINIGPU_GPU_MAP=1,0
run wrapper_same "0|launcher: CUDA_VISIBLE_DEVICES=0" "0|launcher: CUDA_VISIBLE_DEVICES=0" -- env MINIGPU_GPU_MAP=0 "$root/scripts/slurm/select_gpu.sh"
grep -q "warning: .*local ranks 0 and 1 on GPU 0" "$out/wrapper_same.log" ||
  { echo "FAIL wrapper_same: two ranks on GPU 0 not warned"; cat "$out/wrapper_same.log"; status=1; }

MINIGPU_GPU_MAP=1,x "$mpiexec" -n 2 "$minigpu" run "$input" --output-dir "$out/bad" >"$out/bad.log" 2>&1
rc=$?
errors="$(grep -c "error: MINIGPU_GPU_MAP='1,x'" "$out/bad.log")"
if [ "$rc" -ne 2 ] || [ "$errors" -lt 1 ] || [ -e "$out/bad" ]; then
  echo "FAIL bad map: exit $rc (expected 2), $errors line(s) naming it, directory $(ls "$out/bad" 2>&1)"; cat "$out/bad.log"; status=1
fi
exit $status
