#!/usr/bin/env python3
"""minigpu_bench's GEMM round and bench_report.py's reading of it, end to end: the smallest round
(gemm_round/float64/n:64/all, 2 repetitions) must give every kernel's time a call in every
repetition, and the report's pairs must be the medians of the repetitions' own ratios, computed
here from the file. Not a timing test: what the ratios are is not checked, only that they are the
paired ones (a renamed counter or run name would leave bench.sh's pairs unpaired, or missing).
Usage: check_bench_rounds.py MINIGPU_BENCH BENCH_REPORT_PY"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def main():
    bench, script = sys.argv[1], sys.argv[2]
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "round.json")
        run = subprocess.run([bench, "--benchmark_filter=^gemm_round/float64/n:64/all/", "--benchmark_repetitions=2",
                              f"--benchmark_out={path}", "--benchmark_out_format=json"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL minigpu_bench exited {run.returncode}:\n{run.stdout}{run.stderr}")
            return 1
        with open(path, encoding="utf-8") as f:
            reps = [b for b in json.load(f)["benchmarks"] if b["run_name"].startswith("gemm_round/float64/n:64/all/")
                    and b["run_type"] == "iteration"]
        if len(reps) != 2:
            errors.append(f"expected 2 repetitions of the round, found {len(reps)}")
        for rep in reps:
            for kernel in ("blas", "vendor", "native", "auto"):
                if not rep.get(f"{kernel}_s", 0) > 0:
                    errors.append(f"a repetition without a time a call for {kernel}: {rep}")
        report = subprocess.run([sys.executable, script, path], capture_output=True, text=True).stdout
        report = re.sub(" +", " ", report)
        # (row, ours, references): each repetition's ratio is the fastest reference's time over ours.
        for row, ours, refs in (("gemm vendor / blas", "vendor", ["blas"]), ("gemm native / blas", "native", ["blas"]),
                                ("gemm auto / best", "auto", ["vendor", "native"])):
            if errors:
                break
            want = statistics.median(min(r[f"{k}_s"] for k in refs) / r[f"{ours}_s"] for r in reps)
            found = re.search(rf"^{row} float64 n=64 \S+ \S+ (\S+) ", report, re.M)
            if not found:
                errors.append(f"no row '{row} float64 n=64' in the report:\n{report}")
            elif abs(float(found.group(1)) - want) > 0.0006:
                errors.append(f"{row}: the report's ratio {found.group(1)} is not the median of the repetitions' "
                              f"own ({want:.4f}):\n{report}")
    for e in errors:
        print("FAIL", e)
    print("the round's pairs are the medians of its repetitions' own ratios" if not errors
          else f"{len(errors)} failure(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
