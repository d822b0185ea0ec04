#!/usr/bin/env python3
"""Native GEMM's share of the FMA peak with the clock paired: both timed in one process, their
repetitions randomly interleaved (tests/bench/minigpu_bench, --benchmark_enable_random_interleaving),
so that the GEMM and the peak sample the same spells of the machine's clock.

bench_peak.sh's main rows set each run's products against the peak measured seconds before them,
and keep the best of 5 runs. On the 2-core Xeon VM of 2026-12-03 the float64 peak read 60.4-78.5
GFLOP/s in six `minigpu ceilings` runs 5 s apart: a best of ratios can pair a peak taken in a slow
spell with a product in a fast one. Here each row is the median GEMM rate over the median peak
rate of the same interleaved repetitions; the peak's own range says how far the clock moved.
Bars as bench_peak.sh's: n >= 1024 >= 85 %, n = 256 >= 80 %; OpenBLAS's (vendor) share beside.

Usage: peak_paired.py THREADS=BENCH_JSON [THREADS=BENCH_JSON ...]; exits 1 when a row misses
its bar or was not measured, 2 on bad usage."""
import json
import statistics
import sys


def rates(path):
    """run_name -> the GFLOP/s of each repetition; a benchmark that skipped with an error
    (a peak whose chains missed their fixed point) has none."""
    with open(path, encoding="utf-8") as f:
        record = json.load(f)
    out = {}
    for b in record.get("benchmarks", []):
        if b.get("run_type") != "iteration" or b.get("error_occurred") or "GFLOP/s" not in b:
            continue
        out.setdefault(b["run_name"], []).append(float(b["GFLOP/s"]))
    return out


def rows(threads, runs):
    """(line, passed) for every dtype and size the record's gemm rows hold."""
    found = []
    sizes = sorted({(name.split("/")[1], int(name.split("/")[2][2:])) for name in runs
                    if name.startswith("gemm/") and "/native/" in name})
    if not sizes:
        return [(f"{'native GEMM / FMA peak, paired':34} {threads:>8}  no gemm row measured  FAIL", False)]
    for dtype, n in sizes:
        peak = runs.get(f"peak/{dtype}/fma/real_time", [])
        native = runs.get(f"gemm/{dtype}/n:{n}/native/real_time", [])
        vendor = runs.get(f"gemm/{dtype}/n:{n}/vendor/real_time", [])
        bar = 85 if n >= 1024 else 80
        if not peak or not native:
            found.append((f"{'native GEMM / FMA peak, paired':34} {threads:>8} {dtype:>10} n={n:<5} "
                          f"not measured ({'no peak' if not peak else 'no native rate'})  FAIL", False))
            continue
        share = 100 * statistics.median(native) / statistics.median(peak)
        beside = f"   OpenBLAS {100 * statistics.median(vendor) / statistics.median(peak):5.1f} %" if vendor else ""
        verdict = "PASS" if share >= bar else "FAIL"
        found.append((f"{'native GEMM / FMA peak, paired':34} {threads:>8} {dtype:>10} n={n:<5} {share:6.1f} % "
                      f"bar >= {bar} %  {verdict}{beside}   (medians of {len(native)} and {len(peak)} "
                      f"interleaved repetitions; peak {min(peak):.1f}-{max(peak):.1f} GFLOP/s)",
                      verdict == "PASS"))
    return found


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if not argv or any("=" not in a for a in argv):
        print(__doc__, file=sys.stderr)
        return 2
    ok = True
    for arg in argv:
        threads, path = arg.split("=", 1)
        try:
            runs = rates(path)
        except (OSError, ValueError) as e:
            print(f"{'native GEMM / FMA peak, paired':34} {threads:>8}  {path}: {e}  FAIL")
            ok = False
            continue
        for line, passed in rows(threads, runs):
            print(line)
            ok = ok and passed
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
