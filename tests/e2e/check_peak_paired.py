#!/usr/bin/env python3
"""scripts/dev/peak_paired.py (bench_peak.sh's clock-paired GEMM shares) on hand-made
minigpu_bench records: each share is the median GEMM rate over the median peak rate of the same
interleaved repetitions, with its bar and verdict; a peak that skipped with an error, a missing
native rate or an empty record fails the row; bad usage exits 2, --help 0.
Usage: check_peak_paired.py PEAK_PAIRED_PY"""
import json
import os
import re
import subprocess
import sys
import tempfile


def record(path, rates):
    """A Google Benchmark JSON record: rates maps run_name -> GFLOP/s per repetition (None: an
    error), listed interleaved as --benchmark_enable_random_interleaving writes them."""
    benchmarks = []
    longest = max(len(v) for v in rates.values())
    for rep in range(longest):
        for name, values in rates.items():
            if rep >= len(values):
                continue
            b = {"name": name, "run_name": name, "run_type": "iteration", "repetition_index": rep}
            if values[rep] is None:
                b.update(error_occurred=True, error_message="the FMA chains did not end at their fixed point")
            else:
                b["GFLOP/s"] = values[rep]
            benchmarks.append(b)
    # Aggregates, as --benchmark_repetitions adds them: never read as a repetition.
    benchmarks.append({"name": "peak/float64/fma/real_time_median", "run_name": "peak/float64/fma/real_time",
                       "run_type": "aggregate", "aggregate_name": "median", "GFLOP/s": 1e9})
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"context": {}, "benchmarks": benchmarks}, f)


def run(script, *args):
    done = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def share_of(out, threads, dtype, n):
    m = re.search(rf"paired\s+{threads}\s+{dtype} n={n}\s+([0-9.]+) % bar >= (\d+) %  (PASS|FAIL)(.*)", out)
    return (float(m.group(1)), int(m.group(2)), m.group(3), m.group(4)) if m else None


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    script, failures = argv[0], []
    with tempfile.TemporaryDirectory(prefix="peak_paired_") as tmp:
        # A clock that swings between 60 and 150: the peak's median is 80 and native's 70, so 87.5 %.
        # The means (90 and 70) would read 77.8 %, native's best (76) over the peak's worst (60)
        # 127 %: medians of the same interleaved repetitions, nothing else.
        one = os.path.join(tmp, "one.json")
        record(one, {"peak/float64/fma/real_time": [60, 100, 80, 60, 150],
                     "gemm/float64/n:1024/native/real_time": [70, 76, 64, 70, 70],
                     "gemm/float64/n:1024/vendor/real_time": [72, 72, 72, 72, 72],
                     "peak/float32/fma/real_time": [200, 200, 200],
                     "gemm/float32/n:2048/native/real_time": [160, 168, 170],
                     "gemm/float32/n:256/native/real_time": [150, 150, 150]})
        rc, out, err = run(script, f"1={one}")
        print(out, end="")
        want = {("float64", 1024): (87.5, 85, "PASS"), ("float32", 2048): (84.0, 85, "FAIL"),
                ("float32", 256): (75.0, 80, "FAIL")}
        for (dtype, n), (share, bar, verdict) in want.items():
            got = share_of(out, 1, dtype, n)
            if not got or abs(got[0] - share) > 0.05 or got[1:3] != (bar, verdict):
                failures.append(f"{dtype} n={n}: want {share} % bar {bar} {verdict}, got {got}")
        f64 = share_of(out, 1, "float64", 1024)
        if not f64 or "OpenBLAS  90.0 %" not in f64[3] or "peak 60.0-150.0 GFLOP/s" not in f64[3]:
            failures.append(f"float64 n=1024: OpenBLAS's share (90.0 %) and the peak's range beside it: {f64}")
        if rc != 1:
            failures.append(f"two rows miss their bars: exit {rc}, want 1")

        passing = os.path.join(tmp, "passing.json")
        record(passing, {"peak/float64/fma/real_time": [100, 100, 100],
                         "gemm/float64/n:2048/native/real_time": [90, 91, 89]})
        rc, out, _ = run(script, f"2={passing}")
        if rc != 0 or share_of(out, 2, "float64", 2048)[:3] != (90.0, 85, "PASS"):
            failures.append(f"one row at 90 %: exit {rc}, want 0: {out!r}")

        broken = os.path.join(tmp, "broken.json")
        record(broken, {"peak/float64/fma/real_time": [None, None],
                        "gemm/float64/n:1024/native/real_time": [90, 90]})
        rc, out, _ = run(script, f"1={broken}")
        if rc != 1 or "not measured (no peak)" not in out:
            failures.append(f"a peak that skipped with its error is no peak: exit {rc}, {out!r}")

        empty = os.path.join(tmp, "empty.json")
        record(empty, {"peak/float64/fma/real_time": [100]})
        rc, out, _ = run(script, f"1={empty}", f"2={os.path.join(tmp, 'absent.json')}")
        if rc != 1 or "no gemm row measured" not in out or "absent.json" not in out:
            failures.append(f"no gemm rows, and a record that is not there: exit {rc}, {out!r}")

        rc, _, err = run(script, one)
        if rc != 2 or "Usage" not in err:
            failures.append(f"an argument without THREADS=: exit {rc}, want 2 with the usage")
        rc, out, _ = run(script, "--help")
        if rc != 0 or "Usage" not in out:
            failures.append(f"--help: exit {rc}, want 0 with the usage on stdout")
    for f in failures:
        print("FAIL:", f)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
