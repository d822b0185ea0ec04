#!/usr/bin/env python3
"""scripts/dev/peak_paired.py (bench_peak.sh's clock-paired GEMM shares) on hand-made
minigpu_bench records: each row is judged on the upper quartile of the peak_round repetitions'
paired shares (share_pct, not their GEMM rate over their peak rate), their median beside it and
"contended" where the lower quartile lies more than 8 points below, with its bar and verdict, never
met above 100 % (OpenBLAS's unpaired share beside where its rows are there); a round whose peak
skipped with an error, or a record without rounds, fails the row; bad usage exits 2, --help 0.
Usage: check_peak_paired.py PEAK_PAIRED_PY"""
import json
import os
import re
import subprocess
import sys
import tempfile


def record(path, rates):
    """A Google Benchmark JSON record: rates maps run_name -> one entry per repetition, a number
    (GFLOP/s), a (GEMM, peak, share) triple (a peak_round's GEMM_GFLOP/s, peak_GFLOP/s and
    share_pct; share None: 100 GEMM / peak) or None (an error), listed interleaved as
    --benchmark_enable_random_interleaving writes them."""
    benchmarks = []
    longest = max(len(v) for v in rates.values())
    for rep in range(longest):
        for name, values in rates.items():
            if rep >= len(values):
                continue
            b = {"name": name, "run_name": name, "run_type": "iteration", "repetition_index": rep}
            if values[rep] is None:
                b.update(error_occurred=True, error_message="the FMA chains did not end at their fixed point")
            elif isinstance(values[rep], tuple):
                gemm, peak, share = (values[rep] + (None,))[:3]
                b.update({"GEMM_GFLOP/s": gemm, "peak_GFLOP/s": peak,
                          "share_pct": 100 * gemm / peak if share is None else share})
            else:
                b["GFLOP/s"] = values[rep]
            benchmarks.append(b)
    # Aggregates, as --benchmark_repetitions adds them: never read as a repetition.
    benchmarks.append({"name": "peak_round/float64/n:1024/native/real_time_median",
                       "run_name": "peak_round/float64/n:1024/native/real_time", "run_type": "aggregate",
                       "aggregate_name": "median", "GEMM_GFLOP/s": 1e9, "peak_GFLOP/s": 1.0, "share_pct": 1e11})
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
        # A clock that swings between 60 and 150: the repetitions' paired shares (their products
        # each against the peak calls beside them) are 83.3, 90, 90, 80 and 86.7 %: upper quartile
        # 90 % (inclusive quartiles: the 4th of 5), lower 83.3 (the 2nd; 6.7 points below, not
        # contended), median 86.7. Native's best (130) over the peak's worst (60) would read
        # 217 %, the median GEMM rate over the median peak rate (72 / 80) 90 %, and one
        # repetition's GEMM rate over its peak rate 84 % where its share_pct says 90: the paired
        # shares, nothing else. Float32 n = 2048's shares 80, 82 and 83 %: upper quartile 82.5,
        # under its bar.
        one = os.path.join(tmp, "one.json")
        record(one, {"peak_round/float64/n:1024/native/real_time": [(50, 60), (84, 100, 90), (72, 80), (60, 75),
                                                                    (130, 150)],
                     "gemm/float64/n:1024/vendor/real_time": [72, 72, 72, 72, 72],
                     "peak/float64/fma/real_time": [80, 80, 80],
                     "peak_round/float32/n:2048/native/real_time": [(160, 200), (164, 200), (166, 200)],
                     "peak_round/float32/n:256/native/real_time": [(150, 200), (150, 200), (150, 200)]})
        rc, out, err = run(script, f"1={one}")
        print(out, end="")
        want = {("float64", 1024): (90.0, 85, "PASS"), ("float32", 2048): (82.5, 85, "FAIL"),
                ("float32", 256): (75.0, 80, "FAIL")}
        for (dtype, n), (share, bar, verdict) in want.items():
            got = share_of(out, 1, dtype, n)
            if not got or abs(got[0] - share) > 0.05 or got[1:3] != (bar, verdict):
                failures.append(f"{dtype} n={n}: want {share} % bar {bar} {verdict}, got {got}")
        f64 = share_of(out, 1, "float64", 1024)
        if (not f64 or "OpenBLAS  90.0 % (unpaired)" not in f64[3] or "median 86.7 %" not in f64[3]
                or "peak 60.0-150.0 GFLOP/s, GEMM 50.0-130.0" not in f64[3]
                or "contended" in f64[3]):
            failures.append(f"float64 n=1024: OpenBLAS's unpaired share (90.0 %), the median (86.7 %), both "
                            f"sides' ranges and, quartiles 83.3 and 90 %, not contended: {f64}")
        f32 = share_of(out, 1, "float32", 2048)
        if not f32 or "OpenBLAS" in f32[3]:
            failures.append(f"float32 n=2048: no OpenBLAS share without its rows: {f32}")
        if rc != 1:
            failures.append(f"two rows miss their bars: exit {rc}, want 1")

        passing = os.path.join(tmp, "passing.json")
        # Named as minigpu_bench names it, with the round's own MinTime.
        # And float32 n = 1024's quartiles (82 and 90 %) exactly 8 points apart: not contended.
        record(passing, {"peak_round/float64/n:2048/native/min_time:0.500/real_time": [(90, 100), (91, 100),
                                                                                         (89, 100)],
                         "peak_round/float32/n:1024/native/min_time:0.500/real_time": [
                             (82, 100), (90, 100), (86, 100), (82, 100), (90, 100)]})
        rc, out, _ = run(script, f"2={passing}")
        if (rc != 0 or (share_of(out, 2, "float64", 2048) or (0,))[:3] != (90.5, 85, "PASS")
                or (share_of(out, 2, "float32", 1024) or (0,))[:3] != (90.0, 85, "PASS") or "contended" in out):
            failures.append(f"rows at 89-91 % and 82-90 % (upper quartiles 90.5 and 90), neither contended: "
                            f"exit {rc}, want 0: {out!r}")

        # Two repetitions, 80 and 90 %: the upper quartile lies between them (87.5), never past the
        # larger as the exclusive method would put it (92.5).
        two = os.path.join(tmp, "two.json")
        record(two, {"peak_round/float64/n:2048/native/real_time": [(80, 100), (90, 100)]})
        rc, out, _ = run(script, f"2={two}")
        if rc != 0 or (share_of(out, 2, "float64", 2048) or (0,))[:3] != (87.5, 85, "PASS"):
            failures.append(f"two shares, 80 and 90 %: upper quartile 87.5 %, within them: exit {rc}, {out!r}")

        # Contention the peak does not feel: 8 of 15 repetitions at 70-72 %, 7 at 88-90 %. The
        # median (72 %) misses the bar; the upper quartile (between the 11th and 12th of 15: 89 %)
        # meets it, and the row says it was contended, naming its lower quartile (71 %).
        contended = os.path.join(tmp, "contended.json")
        shares = [70, 71, 72, 70, 71, 72, 71, 72, 88, 89, 90, 88, 89, 90, 89]
        record(contended, {"peak_round/float64/n:1024/native/real_time": [(s, 100) for s in shares]})
        rc, out, _ = run(script, f"2={contended}")
        got = share_of(out, 2, "float64", 1024)
        if (rc != 0 or not got or got[:3] != (89.0, 85, "PASS") or "median 72.0 %" not in got[3]
                or "contended, a quarter of them at or below 71.0 %" not in got[3]):
            failures.append(f"a contended row judged on its upper quartile, flagged: exit {rc}, {out!r}")
        # And where the upper quartile misses too, it fails with the same flag.
        record(contended, {"peak_round/float64/n:1024/native/real_time": [(s - 5, 100) for s in shares]})
        rc, out, _ = run(script, f"2={contended}")
        got = share_of(out, 2, "float64", 1024)
        if rc != 1 or not got or got[:3] != (84.0, 85, "FAIL") or "contended" not in got[3]:
            failures.append(f"a contended row under its bar at the upper quartile fails: exit {rc}, {out!r}")

        above = os.path.join(tmp, "above.json")
        record(above, {"peak_round/float32/n:1024/native/real_time": [(101, 100), (102, 100), (99, 100)]})
        rc, out, _ = run(script, f"2={above}")
        if rc != 1 or "101.5 % bar >= 85 %  ABOVE 100 %, the peak's ceiling: not met" not in out or "PASS" in out:
            failures.append(f"a share above the peak is not met: exit {rc}, want 1: {out!r}")

        broken = os.path.join(tmp, "broken.json")
        record(broken, {"peak_round/float64/n:1024/native/real_time": [None, None]})
        rc, out, _ = run(script, f"1={broken}")
        if rc != 1 or "no peak_round row measured" not in out:
            failures.append(f"rounds whose peak skipped with its error are no rounds: exit {rc}, {out!r}")

        empty = os.path.join(tmp, "empty.json")
        record(empty, {"peak/float64/fma/real_time": [100], "gemm/float64/n:1024/native/real_time": [90]})
        rc, out, _ = run(script, f"1={empty}", f"2={os.path.join(tmp, 'absent.json')}")
        if rc != 1 or "no peak_round row measured" not in out or "absent.json" not in out:
            failures.append(f"no rounds (rows of their own only), and a record that is not there: exit {rc}, {out!r}")

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
