#!/usr/bin/env python3
"""scripts/dev/bench_report.py on hand-made Google Benchmark files: native is compared with the
faster of OpenBLAS and BLIS in each case and the row names which, an errored peer row is never
the best, the all-threads file adds native / peer and the 1 -> N efficiency, the report fails
exactly when a ratio misses its bar, and a row drawn from a time faster than the FMA peak measured
beside it is shown, not judged; a case with a round (gemm_round) is paired, its ratio the median
of its repetitions' own.
Usage: check_bench_report.py BENCH_REPORT_PY"""
import json
import os
import re
import subprocess
import sys
import tempfile


def bench_file(path, times, threads, peaks=None, rounds=None):
    """times: run name -> median seconds, or a list of its repetitions' seconds (written with their
    median aggregate); an entry of None is a row that errored. peaks: dtype -> its FMA peak row's
    repetitions in GFLOP/s (peak/DTYPE/fma, as minigpu_bench's counter). rounds: a round's name
    (gemm_round/DTYPE/n:N/SET) -> its repetitions, each {counter: value} (KERNEL_s, PEER_refused)."""
    rows = [{"name": f"peak/{dtype}/fma/real_time", "run_name": f"peak/{dtype}/fma/real_time",
             "run_type": "iteration", "real_time": 1.0, "time_unit": "ms", "GFLOP/s": rate}
            for dtype, rates in (peaks or {}).items() for rate in rates]
    for name, reps in (rounds or {}).items():
        run = f"{name}/min_time:3.000/real_time"  # as Google Benchmark names a row with MinTime
        rows += [{"name": run, "run_name": run, "run_type": "iteration", "real_time": 100.0, "time_unit": "ms",
                  **rep} for rep in reps]
        rows.append({"name": run + "_median", "run_name": run, "run_type": "aggregate", "aggregate_name": "median",
                     "real_time": 100.0, "time_unit": "ms"})
    for name, seconds in times.items():
        for each in seconds if isinstance(seconds, list) else []:
            rows.append({"name": name + "/real_time", "run_name": name + "/real_time", "run_type": "iteration",
                         "real_time": each * 1e3, "time_unit": "ms"})
        median = sorted(seconds)[len(seconds) // 2] if isinstance(seconds, list) else seconds
        row = {"name": name + "/real_time", "run_name": name + "/real_time", "run_type": "aggregate",
               "aggregate_name": "median", "real_time": (median or 0) * 1e3, "time_unit": "ms"}
        if seconds is None:
            row["error_occurred"] = True
        rows.append(row)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"context": {"minigpu_threads": str(threads), "minigpu_blas": "OpenBLAS (test)",
                               "minigpu_blis": "BLIS (test)"}, "benchmarks": rows}, f)


def report(script, tmp, one, many=None, peaks=None, rounds=None, rounds_many=None):
    bench_file(os.path.join(tmp, "one.json"), one, 1, peaks, rounds)
    args = [sys.executable, script, os.path.join(tmp, "one.json")]
    if many is not None:
        bench_file(os.path.join(tmp, "many.json"), many, 2, rounds=rounds_many)
        args += ["--threads", os.path.join(tmp, "many.json")]
    proc = subprocess.run(args, capture_output=True, text=True)
    return proc.returncode, re.sub(" +", " ", proc.stdout)


def missing(out, *wants):
    """An error for each row `out` lacks."""
    return [f"missing {want!r}:\n{out}" for want in wants if want not in out]


def main():
    script, errors = sys.argv[1], []
    with tempfile.TemporaryDirectory() as tmp:
        # n = 1024: BLIS (1.0 s) beats OpenBLAS (1.2 s), native 1.05 s -> 0.952 against BLIS.
        # n = 2048: BLIS errored; OpenBLAS 8 s, native 10 s -> 0.800, a miss.
        one = {"gemm/float32/n:1024/blas": 1.2, "gemm/float32/n:1024/blis": 1.0,
               "gemm/float32/n:1024/native": 1.05, "gemm/float32/n:2048/blas": 8.0,
               "gemm/float32/n:2048/blis": None, "gemm/float32/n:2048/native": 10.0}
        code, out = report(script, tmp, one)
        errors += missing(out, "gemm native / blis float32 n=1024 1.05 1 0.952 >=0.90 PASS",
                          "gemm native / blas float32 n=2048 10 8 0.800 >=0.90 FAIL",
                          "gemm blis / openblas float32 n=1024 1 1.2 1.200 - info")
        if code != 1:
            errors.append(f"a native row under its bar must fail the report (exit {code})")
        # oneDNN's sgemm (0.8 s) beats OpenBLAS (1.2 s) and BLIS (1.1 s): it is the peer, and
        # native's 1.0 s reads 0.800 against it, a miss that OpenBLAS alone would have passed.
        code, out = report(script, tmp, {"gemm/float32/n:512/blas": 1.2, "gemm/float32/n:512/blis": 1.1,
                                         "gemm/float32/n:512/dnnl": 0.8, "gemm/float32/n:512/native": 1.0})
        errors += missing(out, "gemm native / dnnl float32 n=512 1 0.8 0.800 >=0.90 FAIL",
                          "gemm dnnl / openblas float32 n=512 0.8 1.2 1.500 - info")
        if code != 1:
            errors.append(f"native under the fastest peer (oneDNN) must fail the report (exit {code})")
        # Every core: native 0.55 s against OpenBLAS 0.5 s (0.909) at n = 1024, efficiency
        # 1.05 / (2 x 0.55) = 0.955; with n = 2048 gone the report passes.
        del one["gemm/float32/n:2048/native"]
        many = {"gemm/float32/n:1024/blas": 0.5, "gemm/float32/n:1024/blis": 0.6,
                "gemm/float32/n:1024/native": 0.55}
        code, out = report(script, tmp, one, many)
        errors += missing(out, "gemm native / blas, 2 thr float32 n=1024 0.55 0.5 0.909 >=0.90 PASS",
                          "native 1->2 thr eff. float32 n=1024 0.55 1.05 0.955 - info")
        if code != 0:
            errors.append(f"every ratio within its bar must pass (exit {code}):\n{out}")
        # Efficiency past its ideal: 1.05 / (2 x 0.45) = 1.167 is ABOVE, not PASS; at n = 2048 (a
        # row with a bar) it fails the report, and the reason is printed.
        one_fast = {"gemm/float32/n:2048/blas": 1.0, "gemm/float32/n:2048/native": 1.05}
        code, out = report(script, tmp, one_fast, {"gemm/float32/n:2048/blas": 0.5,
                                                    "gemm/float32/n:2048/native": 0.45})
        if code != 1 or "native 1->2 thr eff. float32 n=2048 0.45 1.05 1.167 >=0.90 ABOVE" not in out \
                or "ABOVE native 1->2 thr eff. float32 n=2048: efficiency past its ideal" not in out:
            errors.append(f"an efficiency above 1.05 must be ABOVE and fail (exit {code}):\n{out}")
        # With repetitions in the file, each side's fastest: native 1.3, 1.0, 1.25 s against OpenBLAS
        # 1.4, 0.95, 1.0 (medians 1.25 / 1.0 = 0.800 would miss; minima 0.95 / 1.0 = 0.950 pass).
        reps = {"gemm/float64/n:1024/blas": [1.4, 0.95, 1.0], "gemm/float64/n:1024/native": [1.3, 1.0, 1.25]}
        code, out = report(script, tmp, reps)
        if code != 0 or "gemm native / blas float64 n=1024 1 0.95 0.950 >=0.90 PASS" not in out:
            errors.append(f"repetitions: each side's fastest (exit {code}):\n{out}")
        # A repetition faster than the FMA peak measured beside it met a faster clock than the peak
        # did: OpenBLAS at 0.02 s (2 x 1024^3 / 0.02 = 107.4 GFLOP/s) against a peak of 90-95
        # makes native's 0.0235 s (0.851, a miss) not judged; under a peak of 110 it fails.
        clocked = {"gemm/float64/n:1024/blas": [0.02, 0.025], "gemm/float64/n:1024/native": [0.0235, 0.026]}
        code, out = report(script, tmp, clocked, peaks={"float64": [90.0, 95.0]})
        if code != 0 or "gemm native / blas float64 n=1024 0.0235 0.02 0.851 >=0.90 ----" not in out or \
                "blas's fastest repetition ran 107.4 GFLOP/s, above the float64 FMA peak measured beside it " \
                "(95.0)" not in out:
            errors.append(f"a row above the peak measured beside it must be shown, not judged (exit {code}):\n{out}")
        code, out = report(script, tmp, clocked, peaks={"float64": [110.0]})
        if code != 1 or "gemm native / blas float64 n=1024 0.0235 0.02 0.851 >=0.90 FAIL" not in out:
            errors.append(f"under a peak it does not pass, the row must be judged (exit {code}):\n{out}")
        # All threads: the 1-thread native time (0.02 s) above the one-thread file's peak leaves the
        # efficiency unjudged too.
        code, out = report(script, tmp, {"gemm/float64/n:2048/native": [0.2], "gemm/float64/n:2048/blas": [0.25]},
                           {"gemm/float64/n:2048/native": [0.2], "gemm/float64/n:2048/blas": [0.2]},
                           peaks={"float64": [80.0]})
        if "native 1->2 thr eff. float64 n=2048 0.2 0.2 0.500 >=0.90 ----" not in out:
            errors.append(f"an efficiency from a one-thread time above the peak must not be judged:\n{out}")
        # Rounds: every kernel of a case timed in turn, so a pair's ratio is the median of the
        # repetitions' own. native / blas at n = 64 over (1.0, 0.97), (2.0, 1.96), (1.2, 0.96) s:
        # ratios 0.97, 0.98, 0.80, median 0.970, PASS (the medians' ratio, 0.97 / 1.2 = 0.808,
        # would miss); the sides print their medians, 1.2 and 0.97. OpenBLAS's 0.96 s is 546 GFLOP/s
        # against a peak of 1: a paired row is judged whatever the clock did.
        small = [{"blas_s": 0.97e-3, "native_s": 1.0e-3}, {"blas_s": 1.96e-3, "native_s": 2.0e-3},
                 {"blas_s": 0.96e-3, "native_s": 1.2e-3}]
        code, out = report(script, tmp, {}, peaks={"float64": [1.0]}, rounds={"gemm_round/float64/n:64/all": small})
        errors += missing(out, "gemm native / blas float64 n=64 0.0012 0.00097 0.970 >=0.95 PASS")
        if code != 0:
            errors.append(f"a paired ratio within its bar must pass, whatever the peak (exit {code}):\n{out}")
        # The best peer in each repetition: BLIS 0.9 s, then OpenBLAS 0.95 s, then BLIS 0.8 s
        # against native's 1.0 s each time: ratios 0.90, 0.95, 0.80, median 0.900, BLIS named (the
        # fastest in 2 of 3); dnnl refused the call and left the round, said on its own line.
        mixed = [{"blas_s": 1.0, "blis_s": 0.9, "native_s": 1.0, "dnnl_refused": 1},
                 {"blas_s": 0.95, "blis_s": 1.1, "native_s": 1.0, "dnnl_refused": 1},
                 {"blas_s": 1.2, "blis_s": 0.8, "native_s": 1.0, "dnnl_refused": 1}]
        code, out = report(script, tmp, {}, rounds={"gemm_round/float32/n:1024/all": mixed})
        errors += missing(out, "gemm native / blis float32 n=1024 1 0.9 0.900 >=0.90 PASS",
                          "dnnl in gemm/float32/n:1024: left the round")
        # An all-threads file with a round (bench.sh times each kernel alone there, but the report
        # reads either): native / the best peer paired (0.5 s against 0.45 and 0.55: 0.900, 1.100,
        # median 1.000), and the efficiency from each file's fastest native time: 1.0 / (2 x 0.5).
        many_rounds = {"gemm_round/float32/n:1024/all": [{"blas_s": 0.45, "native_s": 0.5},
                                                         {"blas_s": 0.55, "native_s": 0.5}]}
        code, out = report(script, tmp, {}, {}, rounds={"gemm_round/float32/n:1024/all": mixed},
                           rounds_many=many_rounds)
        errors += missing(out, "gemm native / blas, 2 thr float32 n=1024 0.5 0.5 1.000 >=0.90 PASS",
                          "native 1->2 thr eff. float32 n=1024 0.5 1 1.000 - info")
        if code != 0:
            errors.append(f"paired rows within their bars must pass (exit {code}):\n{out}")
        # Native's own row beside its round: the efficiency takes the own row (1.0 s, as the
        # all-threads file's rows are timed: 1.0 / (2 x 0.5) = 1.000), not the round's 1.1 s
        # (1.100, ABOVE); the pair stays the round's (1.0 / 1.1 = 0.909).
        round_2048 = {"gemm_round/float64/n:2048/all": [{"blas_s": 1.0, "native_s": 1.1}]}
        code, out = report(script, tmp, {"gemm/float64/n:2048/native": [1.0]},
                           {"gemm/float64/n:2048/native": [0.5], "gemm/float64/n:2048/blas": [0.5]}, rounds=round_2048)
        errors += missing(out, "native 1->2 thr eff. float64 n=2048 0.5 1 1.000 >=0.90 PASS",
                          "gemm native / blas float64 n=2048 1.1 1 0.909 >=0.90 PASS")
    for e in errors:
        print("FAIL", e)
    print("bench_report.py pairs native with the best BLAS as computed by hand" if not errors
          else f"{len(errors)} failure(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
