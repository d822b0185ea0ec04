#!/usr/bin/env python3
"""minigpu_bench's rounds and the scripts' reading of them, end to end, in one bench process. The
smallest GEMM round (gemm_round/float64/n:64/all, 2 repetitions) must give every kernel's time a
call in every repetition, and bench_report.py's pairs must be the medians of the repetitions' own
ratios, computed here from the file. The smallest peak round (peak_round/float64/n:1024/native)
must give both rates and a share in every repetition, and peak_paired.py's row must be the upper
quartile of those shares, their median beside it. The 1 MiB copy round (copy_round/bytes:1048576/all)
must give both copies' times a call, and bench_report.py's deep_copy row must be the median of the
repetitions' own memcpy / deep_copy. Not a timing test: what the ratios are is not
checked, only that they are the paired ones (a renamed counter or run name would leave bench.sh's
pairs unpaired, or missing).
Usage: check_bench_rounds.py MINIGPU_BENCH BENCH_REPORT_PY PEAK_PAIRED_PY"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def check_peak_round(reps, peak_paired, path):
    """The peak round's repetitions carry both rates and a share, and peak_paired.py's row is the
    upper quartile of those shares (statistics.quantiles, inclusive), their median beside it."""
    if len(reps) != 2:
        return [f"expected 2 repetitions of the peak round, found {len(reps)}"]
    errors = [f"a peak round's repetition without both rates and a share: {rep}" for rep in reps
              if not all(rep.get(k, 0) > 0 for k in ("GEMM_GFLOP/s", "peak_GFLOP/s", "share_pct"))]
    if errors:
        return errors
    shares = [r["share_pct"] for r in reps]
    want, median = statistics.quantiles(shares, n=4, method="inclusive")[2], statistics.median(shares)
    out = subprocess.run([sys.executable, peak_paired, f"1={path}"], capture_output=True, text=True).stdout
    found = re.search(r"paired\s+1\s+float64 n=1024\s+([0-9.]+) % .*, median ([0-9.]+) %", out)
    if (not found or abs(float(found.group(1)) - want) > 0.051
            or abs(float(found.group(2)) - median) > 0.051):
        errors.append(f"peak_paired.py's share is not the upper quartile of the repetitions' ({want:.2f} %), "
                      f"their median ({median:.2f} %) beside it:\n{out}")
    return errors


def main():
    bench, script, peak_paired = sys.argv[1], sys.argv[2], sys.argv[3]
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "round.json")
        run = subprocess.run([bench, "--benchmark_filter=^(gemm_round/float64/n:64/all|peak_round/float64/n:1024/native"
                              "|copy_round/bytes:1048576/all)/", "--benchmark_repetitions=2",
                              f"--benchmark_out={path}", "--benchmark_out_format=json"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL minigpu_bench exited {run.returncode}:\n{run.stdout}{run.stderr}")
            return 1
        with open(path, encoding="utf-8") as f:
            rows = [b for b in json.load(f)["benchmarks"] if b["run_type"] == "iteration"]
        reps = [b for b in rows if b["run_name"].startswith("gemm_round/float64/n:64/all/")]
        copies = [b for b in rows if b["run_name"].startswith("copy_round/bytes:1048576/all/")]
        errors += check_peak_round([b for b in rows if b["run_name"].startswith("peak_round/float64/n:1024/")],
                                   peak_paired, path)
        if len(reps) != 2:
            errors.append(f"expected 2 repetitions of the round, found {len(reps)}")
        for rep in reps:
            for kernel in ("blas", "vendor", "native", "auto"):
                if not rep.get(f"{kernel}_s", 0) > 0:
                    errors.append(f"a repetition without a time a call for {kernel}: {rep}")
        if len(copies) != 2 or not all(c.get(f"{k}_s", 0) > 0 for c in copies for k in ("deep_copy", "memcpy")):
            errors.append(f"expected 2 repetitions of the copy round, each with both times a call: {copies}")
        report = subprocess.run([sys.executable, script, path], capture_output=True, text=True).stdout
        report = re.sub(" +", " ", report)
        # (row, case, ours, references, repetitions): each repetition's ratio is the fastest
        # reference's time over ours.
        for row, case, ours, refs, found_in in (
                ("gemm vendor / blas", "float64 n=64", "vendor", ["blas"], reps),
                ("gemm native / blas", "float64 n=64", "native", ["blas"], reps),
                ("gemm auto / best", "float64 n=64", "auto", ["vendor", "native"], reps),
                ("deep_copy vs memcpy", "1 MiB", "deep_copy", ["memcpy"], copies)):
            if errors:
                break
            want = statistics.median(min(r[f"{k}_s"] for k in refs) / r[f"{ours}_s"] for r in found_in)
            found = re.search(rf"^{row} {case} \S+ \S+ (\S+) ", report, re.M)
            if not found:
                errors.append(f"no row '{row} {case}' in the report:\n{report}")
            elif abs(float(found.group(1)) - want) > 0.0006:
                errors.append(f"{row}: the report's ratio {found.group(1)} is not the median of the repetitions' "
                              f"own ({want:.4f}):\n{report}")
    for e in errors:
        print("FAIL", e)
    print("the rounds' pairs are the medians of their repetitions' own ratios" if not errors
          else f"{len(errors)} failure(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
