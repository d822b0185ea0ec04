#!/usr/bin/env bash
# Rank-to-rank ping-pong against the machine's reference in one sitting: miniGPU's transfer
# experiment (pingpong, direct path, host memory, 2 ranks laid out as scripts/run.sh does)
# against HPC Challenge's PingPong (Debian's hpcc: b_eff's MPI_Send/MPI_Recv loop, 8-byte
# messages for latency, 2,000,000-byte ones for bandwidth), launched the same way.
#   one-way latency, 8 B:          miniGPU / hpcc <= 1.05
#   bandwidth, 2,000,000 B:        miniGPU / hpcc >= 0.95
# Each launch's figure (hpcc's per-pair figures are the best of its measurements; miniGPU's the
# fastest of its 30 repetitions: 200 round trips each at 8 B, 8 at 2 MB), ROUNDS launches of
# each (default 8), the two alternating; the ratio is the median of the launches' pairs (each
# miniGPU launch over the hpcc launch just before it), each side's best printed beside it.
# Each launch lands in one of the VM's modes (on a 2-vCPU KVM guest 0.24 or 0.55 µs one way,
# for hpcc and miniGPU alike; on the Xeon VM, 2026-12-01, one hpcc launch in 8 read 0.109 µs and
# 10.4 GB/s, as if both ranks shared a core), so a best against a best compared two modes
# whenever one side caught a rare one: that sitting's best-of read 2.05, its pairs 0.95-1.01
# but one. miniGPU's best printed is of the launches its own run did not flag unreliable (all of
# them, marked !, where every one was flagged). Every launch's figure is printed. Exits 1
# when a ratio misses its bar, 77 when hpcc is not installed (apt-get install hpcc;
# scripts/dev/bench.sh does).
# Usage: scripts/dev/bench_pingpong.sh MINIGPU [OUT_DIR]   (ROUNDS=8 in the environment)
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ] || [ $# -lt 1 ]; then
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
minigpu="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
command -v hpcc >/dev/null || { echo "hpcc is not installed: skipped"; exit 77; }

# hpcc's own example input for 1 x 2 ranks: its HPL, FFT and STREAM at N = 1000 take a second.
sed -e 's/^2            Ps/1            Ps/' /usr/share/doc/hpcc/examples/_hpccinf.txt >"$out/hpccinf.txt"
# Latency over 200 round trips a repetition; bandwidth over 8 (2.5 ms at 13 GB/s), so that the
# fastest repetition is a window as short as hpcc's measurements, not an average over 70 ms.
for case in "latency 8 200" "bandwidth 2000000 8"; do
  read -r name size trips <<<"$case"
  cat >"$out/pingpong_$name.yaml" <<YAML
run: {name: pingpong_$name, warmups: 2, repetitions: 30}
experiments:
  - name: transfer
    device: cpu
    sizes: [1KiB]
    directions: [d2d]
    chunks: [1]
    rank_patterns: [pingpong]
    rank_sizes: [$size]
    messages: $trips
YAML
done
rounds="${ROUNDS:-8}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "bench_pingpong.sh: ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2; }
for run in $(seq "$rounds"); do
  mkdir -p "$out/hpcc_$run"
  cp "$out/hpccinf.txt" "$out/hpcc_$run/"
  (cd "$out/hpcc_$run" && mpirun_n 2 hpcc >hpcc.log 2>&1) || { log "FAIL hpcc: see $out/hpcc_$run"; exit 1; }
  for name in latency bandwidth; do
    (unset MINIGPU_EMULATE_GPUS && mpirun_n 2 "$minigpu" run "$out/pingpong_$name.yaml" \
      --output-dir "$out/minigpu_$run") >>"$out/minigpu_$run.txt" 2>&1 ||
      { log "FAIL minigpu: see $out/minigpu_$run.txt"; exit 1; }
  done
done
python3 - "$out" <<'PY'
import csv, glob, os, re, statistics, sys
out = sys.argv[1]

def run_number(path):
    return int(re.search(r"_(\d+)$", path).group(1))

def hpcc(key):
    """{run: figure} over the hpcc runs."""
    runs = {}
    for d in glob.glob(os.path.join(out, "hpcc_*")):
        for line in open(os.path.join(d, "hpccoutf.txt")):
            if line.startswith(key + "="):
                runs[run_number(d)] = float(line.split("=")[1])
    return runs

def minigpu(n_bytes):
    """({run: best one-way µs}, {run: best GB/s}, {runs flagged unreliable: why}, verified) over the
    pingpong rows of n_bytes."""
    us, gbps, unreliable, ok = {}, {}, {}, True
    for d in glob.glob(os.path.join(out, "minigpu_*")):
        if not os.path.isdir(d):
            continue
        for path in glob.glob(os.path.join(d, "*", "results.csv")):
            for r in csv.DictReader(open(path)):
                if r["direction"] == "pingpong" and int(r["bytes"]) == n_bytes:
                    one_way = float(r["min_s"]) / (2 * int(r["messages"]))
                    us[run_number(d)] = 1e6 * one_way
                    gbps[run_number(d)] = n_bytes / one_way / 1e9
                    if r["reliable"] != "true":
                        unreliable[run_number(d)] = r["unreliable_because"]
                    ok = ok and r["verified"] == "true"
    return us, gbps, unreliable, ok

def each(figures, unreliable=()):
    return " ".join(f"{figures[k]:.3g}" + ("!" if k in unreliable else "") for k in sorted(figures))

status = 0
lat_ref, bw_ref = hpcc("AvgPingPongLatency_usec"), hpcc("AvgPingPongBandwidth_GBytes")
lat, _, lat_flagged, ok8 = minigpu(8)
_, bw, bw_flagged, ok2 = minigpu(2000000)
print(f"{'benchmark':44} {'miniGPU':>9} {'hpcc':>9} {'ratio':>7} {'bar':>7}  verdict")
for name, mine, flagged, ref, unit, best, bar, good in [
        ("ping-pong latency, 8 B, one way", lat, lat_flagged, lat_ref, "us", min, "<= 1.05",
         lambda r: r <= 1.05),
        ("ping-pong bandwidth, 2,000,000 B", bw, bw_flagged, bw_ref, "GB/s", max, ">= 0.95",
         lambda r: r >= 0.95)]:
    pairs = sorted(mine[r] / ref[r] for r in mine if r in ref)
    if not pairs:
        print(f"FAIL {name}: no launch of both sides to pair")
        status = 1
        continue
    ratio = statistics.median(pairs)
    verdict = "PASS" if good(ratio) else "FAIL"
    status |= verdict == "FAIL"
    # miniGPU's best launch among those its own run called reliable: a launch it flagged (one read
    # 0.112 us one way against 154-161 in the other seven, cv 29 %, 2026-12-04) is no figure to
    # quote. The ratio is the median of every pair, flagged or not, and prints how many were.
    every_flagged = len(flagged) == len(mine)
    trusted = mine if every_flagged else {r: v for r, v in mine.items() if r not in flagged}
    mark = "!" if every_flagged else ""
    print(f"{name + ' (' + unit + ')':44} {best(trusted.values()):8.3f}{mark or ' '} {best(ref.values()):9.3f} "
          f"{ratio:7.3f} {bar:>7}  {verdict}   (ratio: median of {len(pairs)} paired launches, "
          f"{pairs[0]:.3f}-{pairs[-1]:.3f}, {len(flagged)} of them flagged unreliable by miniGPU; "
          f"best of each side {best(trusted.values()) / best(ref.values()):.3f})")
    print(f"  each run in order, miniGPU (! = flagged unreliable): {each(mine, flagged)}; hpcc: {each(ref)}")
    for r in sorted(flagged):
        print(f"  ! miniGPU launch {r}: {flagged[r]}")
if not (ok8 and ok2):
    print("FAIL a miniGPU ping-pong row was not verified")
    status = 1
sys.exit(status)
PY
