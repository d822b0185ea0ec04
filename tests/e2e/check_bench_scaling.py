#!/usr/bin/env python3
"""scripts/dev/bench_scaling.py on hand-made run records: the overlap ratio and exposed share it
prints are the ones the rows give, and it fails exactly when a figure misses its bar, judging
neither where a row is unreliable nor the ratio where the medians' intervals overlap; model
errors are judged only on reliable rows with n >= 1024.
Usage: check_bench_scaling.py BENCH_SCALING_PY"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_fixture import write_run  # noqa: E402


def row(overlap, median, values, n=4096, reliable=True, case=None, reach=0.01):
    """`reach`: how far the median's 95 % interval reaches either side, as a share of it."""
    return {"experiment": "matmul_scaling", "case": case or f"summa overlap={overlap}", "dtype": "float32",
            "params": {"decomposition": "summa", "overlap": overlap, "ranks": "2", "n": str(n)},
            "seconds": {"median": median, "median_ci95": [median * (1 - reach), median * (1 + reach)]},
            "values": values, "reliable": reliable,
            "unreliable_because": "" if reliable else "oversubscribed"}


def run(script, mode, rows):
    with tempfile.TemporaryDirectory() as tmp:
        write_run(os.path.join(tmp, "r"), "summa_overlap_4096", rows)
        proc = subprocess.run([sys.executable, script, mode, tmp], capture_output=True, text=True)
        return proc.returncode, proc.stdout


def run_launches(script, launches):
    """bench_scaling.py model over one directory holding a run per entry of LAUNCHES (its rows)."""
    with tempfile.TemporaryDirectory() as tmp:
        for i, rows in enumerate(launches):
            write_run(os.path.join(tmp, f"launch{i + 1}"), "matmul_vs_scalapack", rows)
        proc = subprocess.run([sys.executable, script, "model", tmp], capture_output=True, text=True)
        return proc.returncode, proc.stdout


def main():
    script, errors = sys.argv[1], []
    model = {"model_s": 1.0, "model_comm_s": 0.1, "model_comm_exposed_s": 0.01}
    blocking = row("false", 10.0, {**model, "comm_s": 2.0, "comm_exposed_s": 2.0})
    # 9 s against 10 s, 0.5 s exposed of 2 s: ratio 0.9000 and 25.0 %, both within their bars.
    code, out = run(script, "overlap", [blocking, row("true", 9.0, {**model, "comm_s": 2.0, "comm_exposed_s": 0.5})])
    if code != 0 or "= 0.9000" not in out or "= 25.0 % of comm_s" not in out:
        errors.append(f"a good overlap was not passed as 0.9000 and 25.0 % (exit {code}):\n{out}")
    # Slower than blocking (10.5 s): the ratio fails; 1.5 s exposed of 2 s (75 %): the share fails.
    for median, exposed, word in ((10.5, 0.5, "time"), (9.0, 1.5, "exposed")):
        code, out = run(script, "overlap", [blocking, row("true", median, {**model, "comm_s": 2.0,
                                                                           "comm_exposed_s": exposed})])
        if code != 1 or f"FAIL summa {'overlapped' if word == 'time' else 'exposed'}" not in out:
            errors.append(f"a missed {word} bar did not fail (exit {code}):\n{out}")
    # 10.2 s against 10 s with intervals of ±3 % that overlap: which side of 1 is not known, so the
    # ratio is not judged (and does not fail); the same over an unreliable twin.
    noisy = row("true", 10.2, {**model, "comm_s": 2.0, "comm_exposed_s": 0.5}, reach=0.03)
    code, out = run(script, "overlap", [blocking, noisy])
    if code != 0 or "---- summa overlapped / blocking time" not in out or "intervals overlap" not in out:
        errors.append(f"a ratio inside the medians' intervals was judged (exit {code}):\n{out}")
    crowded_twin = {**blocking, "reliable": False, "unreliable_because": "oversubscribed"}
    code, out = run(script, "overlap", [crowded_twin, row("true", 10.5, {**model, "comm_s": 2.0,
                                                                          "comm_exposed_s": 0.5})])
    if code != 0 or "not judged: summa overlap=false: oversubscribed" not in out:
        errors.append(f"a ratio over an unreliable row was judged (exit {code}):\n{out}")
    crowded = row("true", 9.0, {**model, "comm_s": 2.0, "comm_exposed_s": 1.5}, reliable=False)
    code, out = run(script, "overlap", [blocking, crowded])
    if code != 0 or "---- summa exposed communication" not in out:
        errors.append(f"an unreliable row's exposed share was judged (exit {code}):\n{out}")
    code, out = run(script, "overlap", [blocking])
    if code != 1:
        errors.append(f"a run without an overlapped row passed (exit {code}):\n{out}")
    # Model: -25 % fails, +5 % passes; an unreliable row and a small n are shown, not judged.
    good = row("true", 1.0, {"model_s": 1.05, "model_error_pct": 5.0}, case="good")
    bad = row("true", 1.0, {"model_s": 0.75, "model_error_pct": -25.0}, case="bad")
    crowded = row("true", 1.0, {"model_s": 0.5, "model_error_pct": -50.0}, reliable=False, case="crowded")
    small = row("true", 1.0, {"model_s": 0.5, "model_error_pct": -50.0}, n=512, case="small")
    code, out = run(script, "model", [good, crowded, small])
    if code != 0 or "PASS model error, good" not in out or "not judged: oversubscribed" not in out:
        errors.append(f"model errors within the bar were not passed (exit {code}):\n{out}")
    code, out = run(script, "model", [good, bad])
    if code != 1 or "FAIL model error, bad" not in out:
        errors.append(f"a 25 % model error did not fail (exit {code}):\n{out}")
    # Several launches of one input: each row judged once, by the median of its launches' errors
    # (one launch's -25 % does not fail it, two do), and not where its reliable launches are half or fewer.
    def launch(error, reliable=True):
        return [row("true", 1.0, {"model_s": 1.0 + error / 100, "model_error_pct": error}, case="scalapack",
                    reliable=reliable)]
    for launch_errors, reliable, expected, text in (
            ((-25.0, 5.0, 10.0), (True,) * 3, 0, "PASS model error, scalapack float32, the median of 3 launches "
                                                 "= +5.0 % (bar |error| <= 20 %) [launches: -25.0, +5.0, +10.0 %]"),
            ((-25.0, -22.0, 5.0), (True,) * 3, 1, "FAIL model error, scalapack float32, the median of 3 launches "
                                                  "= -22.0 %"),
            ((-25.0, -50.0, 5.0), (True, False, True), 0, "= -10.0 % (bar |error| <= 20 %) [launches: -25.0, "
                                                          "-50.0 (set aside: oversubscribed), +5.0 %]"),
            ((-25.0, -50.0, 5.0), (False, False, True), 1, "---- model error, scalapack float32, the median of 3 "
                                                           "launches = -25.0 % (not judged: oversubscribed)")):
        code, out = run_launches(script, [launch(e, ok) for e, ok in zip(launch_errors, reliable)])
        if code != expected or text not in out or out.count("model error, scalapack") != 1:
            errors.append(f"launches {launch_errors} reliable {reliable}: expected exit {expected} and '{text}' once, got exit {code}:\n{out}")
    print("\n".join(errors) or "bench_scaling.py: bars and figures as the records give them")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
