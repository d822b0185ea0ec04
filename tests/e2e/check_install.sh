#!/usr/bin/env bash
# `cmake --install` of this build into a temporary prefix, then the installed minigpu used from
# a directory outside the source tree, as a user of the install would:
#   check_install.sh BUILD_DIR SOURCE_DIR PYTHON [CMAKE]
# --version names project(VERSION) and the source's git commit; the binary finds the installed
# share/minigpu (schema, inputs, scripts), also after the prefix is moved; an example input named
# without a path runs for real, its run.json validates against the installed schema and --plot
# runs the installed plot script; the installed Slurm script finds the installed binary.
set -uo pipefail
build="$1"
src="$2"
python="$3"
cmake="${4:-cmake}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

prefix="$tmp/prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 || {
  cat "$tmp/install.log"
  echo "FAIL: cmake --install"
  exit 1
}
data="$prefix/share/minigpu"
for f in bin/minigpu share/minigpu/schema/run.schema.json share/minigpu/inputs/quickstart.yaml \
  share/minigpu/inputs/README.md share/minigpu/scripts/plot.py share/minigpu/scripts/plotlib/common.py \
  share/minigpu/slurm/minigpu.sbatch share/minigpu/slurm/find_binary.sh share/minigpu/slurm/sweep.sh \
  share/minigpu/slurm/select_gpu.sh; do
  [ -f "$prefix/$f" ] || fail "the install lacks $f"
done
cmp -s "$data/schema/run.schema.json" "$src/docs/run.schema.json" || fail "the installed schema is not docs/run.schema.json"

# The version comes from the one project(VERSION ...) line, read here from CMakeLists.txt itself.
version="$(sed -n 's/^project([^)]*VERSION \([0-9][0-9.]*\).*/\1/p' "$src/CMakeLists.txt")"
[ -n "$version" ] || fail "no project(VERSION ...) in $src/CMakeLists.txt"
work="$tmp/work"
mkdir -p "$work"
check_version() {  # PREFIX: the install's --version, run from outside the source tree
  local out first
  out="$(cd "$work" && "$1/bin/minigpu" --version 2>&1)" || fail "minigpu --version exited $?: $out"
  first="$(head -n 1 <<< "$out")"
  [[ "$first" =~ ^minigpu\ ([0-9.]+)\ \(git\ ([0-9a-f]{12}(-dirty)?|unknown), ]] ||
    fail "--version's first line is not 'minigpu VERSION (git HASH, ...': $first"
  [ "${BASH_REMATCH[1]:-}" = "$version" ] || fail "--version says ${BASH_REMATCH[1]:-?}, project(VERSION) is $version"
  local head
  if head="$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null)"; then
    [[ "${BASH_REMATCH[2]:-}" == "$head"* ]] || fail "--version's git ${BASH_REMATCH[2]:-?} is not HEAD $head (a build older than the last commit?)"
  fi
  grep -qxF "data: $1/share/minigpu (installed)" <<< "$out" || fail "the install's data directory not found: $out"
  grep -qxF "schema: $1/share/minigpu/schema/run.schema.json" <<< "$out" || fail "the installed schema not found: $out"
}
check_version "$prefix"

# A moved prefix: the binary finds its data relative to itself, not where it was installed.
mv "$prefix" "$tmp/moved"
check_version "$tmp/moved"
mv "$tmp/moved" "$prefix"

# An example input by its bare name, run for real (one small experiment) with the figures.
out="$(cd "$work" && MINIGPU_EMULATE_GPUS= "$prefix/bin/minigpu" run quickstart.yaml --only lazy \
  --output-dir "$work/results" --plot 2>&1)"
rc=$?
[ $rc -eq 0 ] || fail "installed minigpu run quickstart.yaml exited $rc: $out"
run_dir="$(find "$work/results" -mindepth 1 -maxdepth 1 -type d -name 'quickstart-*' | head -n 1)"
if [ -z "$run_dir" ]; then
  fail "no run directory under $work/results: $out"
else
  [ -s "$run_dir/lazy_fence.png" ] || fail "--plot drew no lazy_fence.png with the installed scripts"
  "$python" - "$data/schema/run.schema.json" "$run_dir/run.json" "$data/inputs/quickstart.yaml" <<'PY' || fail "run.json"
import json, sys
import jsonschema
schema, record = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(record)]
if errors:
    sys.exit("run.json does not validate against the installed schema: " + "; ".join(errors[:3]))
if record["input_file"] != sys.argv[3]:
    sys.exit(f"run.json's input_file is {record['input_file']}, not the installed example {sys.argv[3]}")
if record["status"] != "complete" or not record["results"]:
    sys.exit(f"run.json: status {record['status']}, {len(record['results'])} results")
PY
fi

# The installed Slurm script, run as a plain batch script (mpirun, one rank): it finds the
# installed binary and the installed default input.
out="$(cd "$work" && MINIGPU_LAUNCHER=mpirun OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  bash "$data/slurm/minigpu.sbatch" --dry-run 2>&1)"
rc=$?
[ $rc -eq 0 ] || fail "installed minigpu.sbatch --dry-run exited $rc: $out"
grep -qF "binary $prefix/bin/minigpu " <<< "$out" || fail "minigpu.sbatch did not take the installed binary: $out"
grep -qF "run $data/inputs/quickstart.yaml" <<< "$out" || fail "minigpu.sbatch did not take the installed input: $out"

[ $failures -eq 0 ] && echo "PASS"
exit $((failures > 0))
