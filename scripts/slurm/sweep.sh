#!/usr/bin/env bash
# A scaling sweep on Slurm: one minigpu.sbatch job per rank count, then one merged table.
#
#   scripts/slurm/sweep.sh INPUT.yaml RANKS...       e.g. sweep.sh inputs/matmul_scaling.yaml 1 2 4 8
#   scripts/slurm/sweep.sh --merge SWEEP_DIR         merge again (e.g. after a wait that timed out)
#
# Writes ${MINIGPU_OUTPUT_DIR:-./results}/sweep-<UTC stamp>/: np<R>/ per rank count (the job's
# run directory and its Slurm log), jobs.tsv (ranks, job id, state, exit code) and merged.csv: every
# job's results.csv rows with job_ranks and job_id columns in front (columns missing in some
# jobs are left empty). Exits 0 when every job COMPLETED with exit code 0:0 and merged.
#
# Environment:
#   MINIGPU_SBATCH_ARGS    extra sbatch options for every job (split on spaces), e.g.
#                          "-p gpu --gpus-per-task=1 --ntasks-per-node=4 --cpus-per-task=8"
#   MINIGPU_SWEEP_TIMEOUT  seconds to wait for the jobs (default 86400); MINIGPU_SWEEP_POLL
#                          seconds between polls (default 10)
#   MINIGPU_BIN            the binary every job runs; default: with GPUs in MINIGPU_SBATCH_ARGS
#                          (--gpus*, --gres=gpu, -G) the CUDA build (build-cuda/), else the host
#                          build; a host-only binary with GPUs asked for is refused (exit 2)
#   MINIGPU_LAUNCHER, ...: passed to the jobs (see minigpu.sbatch)

# -h/--help: this header, before any job is submitted or directory made. Not through
# scripts/common.sh: an install's slurm/ (cmake --install) has no common.sh beside it.
case "${1:-}" in -h | --help) awk 'NR == 1 && /^#!/ { next } $0 != "#" && !/^# / { exit } { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -uo pipefail

say() { echo "[sweep] $*" >&2; }
die() {
  say "$*"
  exit 2
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# A repository's scripts/slurm/, or an install's share/minigpu/slurm/ (cmake --install).
root="${MINIGPU_ROOT:-$(cd "$here/../.." && pwd)}"
[ -n "${MINIGPU_ROOT:-}" ] || [ ! -f "$here/install_layout.sh" ] || root="$(cd "$here/.." && pwd)"

# merge SWEEP_DIR: np<R>/<run>/results.csv -> merged.csv with job_ranks, job_id.
merge() {
  python3 - "$1" <<'EOF'
import csv, glob, os, re, sys
sweep = sys.argv[1]
jobs = {}
tsv = os.path.join(sweep, "jobs.tsv")
if os.path.exists(tsv):
    with open(tsv, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields and fields[0].isdigit():
                jobs[fields[0]] = fields[1] if len(fields) > 1 else ""
parts = []
for d in glob.glob(os.path.join(sweep, "np*")):
    m = re.fullmatch(r"np(\d+)", os.path.basename(d))
    if m:
        parts.append((int(m.group(1)), d))
columns, rows = ["job_ranks", "job_id"], []
status = 0
for ranks, d in sorted(parts):
    found = sorted(glob.glob(os.path.join(d, "*", "results.csv")))
    # Only complete runs: a killed job leaves NAME.partial-XXXXXX, an interrupted one
    # NAME.interrupted, a failed write NAME.failed-XXXXXX (run them again with --resume).
    unfinished = re.compile(r"\.(partial-\w{6}|failed-\w{6}|interrupted(-\d+)?)$")
    incomplete = [p for p in found if unfinished.search(os.path.dirname(p))]
    found = [p for p in found if p not in incomplete]
    if len(found) != 1:
        also = f" (and {len(incomplete)} unfinished: {', '.join(os.path.basename(os.path.dirname(p)) for p in incomplete)})" if incomplete else ""
        print(f"[sweep] {ranks} rank(s): expected one complete run under {d}, found {len(found)}{also}", file=sys.stderr)
        status = 1
        continue
    with open(found[0], newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        for c in reader.fieldnames or []:
            if c not in columns:
                columns.append(c)
        for row in reader:
            row["job_ranks"], row["job_id"] = str(ranks), jobs.get(str(ranks), "")
            rows.append(row)
out = os.path.join(sweep, "merged.csv")
with open(out, "w", newline="", encoding="utf-8") as f:
    writer = csv.DictWriter(f, fieldnames=columns, restval="")
    writer.writeheader()
    writer.writerows(rows)
unverified = sum(1 for r in rows if r.get("verified") != "true")
print(f"[sweep] {out}: {len(rows)} rows from {len(parts)} job(s), {unverified} not verified", file=sys.stderr)
sys.exit(1 if status or unverified or not rows else 0)
EOF
}

if [ "${1:-}" = "--merge" ]; then
  if [ $# -ne 2 ] || [ ! -d "$2" ]; then
    die "usage: $0 --merge SWEEP_DIR"
  fi
  merge "$2"
  exit $?
fi

[ $# -ge 2 ] || die "usage: $0 INPUT.yaml RANKS... | $0 --merge SWEEP_DIR"
input="$1"
shift
[ -f "$input" ] || die "no such input: $input"
input="$(cd "$(dirname "$input")" && pwd)/$(basename "$input")"
for r in "$@"; do
  [[ "$r" =~ ^[1-9][0-9]*$ ]] || die "rank counts must be positive integers, not '$r'"
done
for tool in sbatch squeue scontrol python3; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found: run this on a Slurm login node"
done

read -r -a sbatch_args <<< "${MINIGPU_SBATCH_ARGS:-}"
wants_gpu=0
for arg in "${sbatch_args[@]}"; do
  case "$arg" in --gpus* | --gres=gpu* | --gres=*,gpu* | -G*) wants_gpu=1 ;; esac
done
# shellcheck source=find_binary.sh
source "$here/find_binary.sh"
bin="$(minigpu_binary "$root" "$wants_gpu" 2>&1)" || die "$bin"
export MINIGPU_BIN="$bin"
say "binary $bin (GPU backend: $(minigpu_gpu_backend "$bin"))"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
base="${MINIGPU_OUTPUT_DIR:-$PWD/results}"
mkdir -p "$base" || die "cannot create $base"
sweep="$base/sweep-$stamp"
n=1
until mkdir "$sweep" 2>/dev/null; do
  n=$((n + 1))
  sweep="$base/sweep-$stamp-$n"
  [ $n -lt 100 ] || die "cannot create a sweep directory under $base"
done
timeout="${MINIGPU_SWEEP_TIMEOUT:-86400}"
poll="${MINIGPU_SWEEP_POLL:-10}"

# Submit: the jobs find the repository through MINIGPU_ROOT, whatever the spool copy's path.
declare -A job_of
ids=()
for r in "$@"; do
  [ -z "${job_of[$r]:-}" ] || continue
  mkdir -p "$sweep/np$r"
  id="$(MINIGPU_ROOT="${MINIGPU_ROOT:-$root}" MINIGPU_OUTPUT_DIR="$sweep/np$r" \
    sbatch --parsable --ntasks="$r" --job-name="minigpu-np$r" --output="$sweep/np$r/slurm-%j.out" \
    "${sbatch_args[@]}" "$here/minigpu.sbatch" "$input")" || die "sbatch failed for $r rank(s)"
  id="${id%%;*}"
  job_of[$r]="$id"
  ids+=("$id")
  say "$r rank(s): job $id"
done
say "waiting for ${#ids[@]} job(s) (up to ${timeout}s): $sweep"

# state ID -> "STATE EXITCODE": scontrol while the controller remembers the job, else sacct.
state() {
  local line st ec
  line="$(scontrol -o show job "$1" 2>/dev/null)"
  if [ -n "$line" ]; then
    st="$(tr ' ' '\n' <<< "$line" | sed -n 's/^JobState=//p' | head -n 1)"
    ec="$(tr ' ' '\n' <<< "$line" | sed -n 's/^ExitCode=//p' | head -n 1)"
  else
    line="$(sacct -X -n -P -j "$1" -o State,ExitCode 2>/dev/null | head -n 1)"
    st="${line%%|*}"
    st="${st%% *}"
    ec="${line#*|}"
  fi
  echo "${st:-UNKNOWN} ${ec:--}"
}
finished() {
  case "$1" in
    PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|REQUEUE_HOLD|REQUEUE_FED|RESIZING|SIGNALING|STAGE_OUT) return 1 ;;
    *) return 0 ;;
  esac
}

deadline=$((SECONDS + timeout))
declare -A unknown  # polls in a row where neither scontrol nor sacct knew the job
last=""
while :; do
  pending=0
  now=""
  for id in "${ids[@]}"; do
    read -r st _ <<< "$(state "$id")"
    now+=" $id:$st"
    if [ "$st" = UNKNOWN ]; then
      # A controller hiccup, or a finished job purged without accounting: give it 3 polls.
      unknown[$id]=$(( ${unknown[$id]:-0} + 1 ))
      [ "${unknown[$id]}" -ge 3 ] || pending=$((pending + 1))
      continue
    fi
    unknown[$id]=0
    finished "$st" || pending=$((pending + 1))
  done
  [ $pending -eq 0 ] && break
  [ "$now" = "$last" ] || say "jobs:$now"
  last="$now"
  if [ $SECONDS -ge $deadline ]; then
    squeue -j "$(IFS=,; echo "${ids[*]}")" >&2 2>/dev/null
    say "timed out with $pending job(s) unfinished; they keep running: merge later with $0 --merge $sweep"
    exit 3
  fi
  sleep "$poll"
done

ok=0
printf 'ranks\tjob_id\tstate\texit_code\n' > "$sweep/jobs.tsv"
for r in "$@"; do
  id="${job_of[$r]}"
  [ -n "$id" ] || continue
  read -r st ec <<< "$(state "$id")"
  printf '%s\t%s\t%s\t%s\n' "$r" "$id" "$st" "$ec" >> "$sweep/jobs.tsv"
  job_of[$r]=""
  say "$r rank(s): job $id $st exit $ec"
  [ "$st" = COMPLETED ] && [ "$ec" = "0:0" ] || ok=1
done
merge "$sweep" || ok=1
echo "$sweep/merged.csv"
exit $ok
