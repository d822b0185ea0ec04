#!/usr/bin/env python3
"""scripts/dev/bench_findings.py on hand-made run records: a reliable finding passes or fails its
bar on either side, an unreliable one is printed "not judged" and neither passes nor fails (but
a ratio flagged only for its medians' overlapping intervals, or an efficiency flagged only for
an interval reaching above 100 % or a value above 100 % with an interval reaching down to it, is
judged by its own interval where that lies on one side of the bar), and the check fails when no finding matches or none could be judged.
Several launches in one directory: each finding judged once, by the median of the launches' values
that count (reliable, or flagged only as above), where those are more than half of the launches.
Usage: check_bench_findings.py BENCH_FINDINGS_PY"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_fixture import write_run  # noqa: E402


OVERLAP = "the two medians' 95 % intervals overlap"  # io::ratio_finding's words
SUPERLINEAR = "superlinear (above 100 %): noise or cache effects, not a real speedup"  # efficiency_finding's


def reaches(low, high):  # io::efficiency_finding's flag for an interval past the ideal
    return f"its 95 % interval [{low:g}, {high:g}] % reaches above 100 %: not told apart from superlinear"


def finding(name, value, reliable=True, because="straggler: rank 0", ci95=None):
    f = {"experiment": "matmul_scaling", "name": name, "value": value, "unit": "x", "note": "hand-made",
         "reliable": reliable, "unreliable_because": "" if reliable else because}
    if ci95:
        f["ci95"] = ci95
    return f


def run(script, findings, *bar):
    with tempfile.TemporaryDirectory() as tmp:
        write_run(os.path.join(tmp, "r"), "hand_made", findings=findings)
        proc = subprocess.run([sys.executable, script, tmp, "ratio_", *bar], capture_output=True, text=True)
        return proc.returncode, proc.stdout


def run_launches(script, launches, *bar):
    """bench_findings.py over one directory holding a run per entry of LAUNCHES (its findings)."""
    with tempfile.TemporaryDirectory() as tmp:
        for i, findings in enumerate(launches):
            write_run(os.path.join(tmp, f"launch{i + 1}"), "hand_made", findings=findings)
        proc = subprocess.run([sys.executable, script, tmp, "ratio_", *bar], capture_output=True, text=True)
        return proc.returncode, proc.stdout


def ratios(*values, **flags):
    return [[finding("ratio_a", v, **flags)] for v in values]


def main():
    script, errors = sys.argv[1], []
    launch_cases = [
        # (launches, bar, expected exit, text the output must hold): the median, not the first
        # launch and not the best, is judged on either side of the bar.
        (ratios(0.95, 0.85, 0.88), ["--at-most", "0.9", "--goal", "0.6"], 0,
         "PASS ratio_a: the median of 3 of 3 launches = 0.88 (bar <= 0.9; goal <= 0.6 not met) [0.95, 0.85, 0.88] "
         "[hand-made]"),
        (ratios(0.85, 0.95, 0.92), ["--at-most", "0.9"], 1, "FAIL ratio_a: the median of 3 of 3 launches = 0.92"),
        (ratios(85.0, 95.0, 91.0), ["--at-least", "90"], 0, "PASS ratio_a: the median of 3 of 3 launches = 91"),
        # A launch flagged for anything but its side of 1 is set aside and named; the rest judged.
        ([[finding("ratio_a", 2.0, reliable=False)]] + ratios(0.85, 0.87), ["--at-most", "0.9"], 0,
         "PASS ratio_a: the median of 2 of 3 launches = 0.86 (bar <= 0.9; set aside: launch1: straggler: rank 0)"),
        ([[finding("ratio_a", 0.5, reliable=False)]] + ratios(0.95, 0.97), ["--at-most", "0.9"], 1,
         "FAIL ratio_a: the median of 2 of 3 launches = 0.96"),
        # A launch flagged only because its side of 1 is open counts: the bar is elsewhere.
        ([[finding("ratio_a", 1.0, False, OVERLAP, [0.95, 1.05])]] + ratios(1.02, 1.3), ["--at-most", "1.11"], 0,
         "PASS ratio_a: the median of 3 of 3 launches = 1.02"),
        # Half of the launches or fewer counted: not judged, and the check fails.
        ([[finding("ratio_a", 0.5, reliable=False)], [finding("ratio_a", 0.5, reliable=False)]] + ratios(0.85),
         ["--at-most", "0.9"], 1, "no finding had more than half of its launches counted"),
        ([[finding("ratio_a", 0.5, reliable=False)]] + ratios(0.85), ["--at-most", "0.9"], 1,
         "---- ratio_a: the median of 1 of 2 launches (not judged: fewer than half"),
        # A launch without a value, or without that one of its findings, is set aside, not read as
        # a pass; a run without any finding of the prefix (another input's, in a results/
        # directory) is no launch at all.
        (ratios(0.85, None, 0.86), ["--at-most", "0.9"], 0, "the median of 2 of 3 launches = 0.855 (bar <= 0.9; "
                                                           "set aside: launch2: no value)"),
        ([[finding("ratio_a", 0.85), finding("ratio_b", 0.5)], [finding("ratio_a", 0.86)]], ["--at-most", "0.9"],
         0, "---- ratio_b: the median of 1 of 2 launches (not judged: fewer than half of the launches count; "
            "set aside: launch2: no value)"),
        (ratios(0.85) + [[finding("other", 0.1)]] + ratios(0.87), ["--at-most", "0.9"], 0,
         "PASS ratio_a: the median of 2 of 2 launches = 0.86"),
        (ratios(0.85, None, None), ["--at-most", "0.9"], 1, "no finding had more than half"),
    ]
    for launches, bar, expected, text in launch_cases:
        code, out = run_launches(script, launches, *bar)
        if code != expected or text not in out:
            errors.append(f"launches {[[(f['name'], f['value']) for f in run] for run in launches]} {bar}: "
                          f"expected exit {expected} and '{text}', got exit {code}:\n{out}")
    cases = [
        # (findings, bar, expected exit, text the output must hold)
        ([finding("ratio_a", 0.85)], ["--at-most", "0.9", "--goal", "0.6"], 0, "PASS"),
        ([finding("ratio_a", 0.85)], ["--at-most", "0.9", "--goal", "0.6"], 0, "goal <= 0.6 not met"),
        ([finding("ratio_a", 0.95)], ["--at-most", "0.9"], 1, "FAIL"),
        ([finding("ratio_a", 95.0)], ["--at-least", "90"], 0, "PASS"),
        ([finding("ratio_a", 85.0)], ["--at-least", "90"], 1, "FAIL"),
        ([finding("ratio_a", None)], ["--at-most", "0.9"], 1, "= n/a"),
        # An unreliable finding past its bar fails nothing, and one within it passes nothing; a
        # reliable one beside it is judged.
        ([finding("ratio_a", 0.95, reliable=False), finding("ratio_b", 0.5)], ["--at-most", "0.9"], 0,
         "---- matmul_scaling.ratio_a = 0.95 x (not judged: unreliable: straggler: rank 0)"),
        ([finding("ratio_a", 0.5, reliable=False), finding("ratio_b", 0.95)], ["--at-most", "0.9"], 1,
         "FAIL matmul_scaling.ratio_b"),
        # A ratio flagged only because its medians' intervals overlap (its side of 1 is open) is
        # judged by its own interval where that lies wholly on one side of a bar away from 1 ...
        ([finding("ratio_a", 1.0, False, OVERLAP, [0.97, 1.03])], ["--at-most", "1.11"], 0,
         "PASS matmul_scaling.ratio_a = 1 x, judged by its 95 % interval [0.97, 1.03]"),
        ([finding("ratio_a", 1.0, False, OVERLAP, [0.95, 1.05])], ["--at-most", "0.9"], 1,
         "FAIL matmul_scaling.ratio_a = 1 x, judged by its 95 % interval"),
        # ... and not where the bar falls inside it, nor with any other flag beside the overlap.
        ([finding("ratio_a", 0.88, False, OVERLAP, [0.8, 1.02])], ["--at-most", "0.9"], 1, "none could be judged"),
        ([finding("ratio_a", 1.0, False, OVERLAP + "; straggler: rank 0", [0.97, 1.03])], ["--at-most", "1.11"],
         1, "none could be judged"),
        ([finding("ratio_a", 1.0, False, OVERLAP)], ["--at-most", "1.11"], 1, "none could be judged"),
        # The same for an efficiency flagged only because its interval reaches above 100 % (its
        # side of the ideal is open) ...
        ([finding("ratio_a", 99.91, False, reaches(99.4, 101), [99.4, 100.7])], ["--at-least", "90"], 0,
         "PASS matmul_scaling.ratio_a = 99.91 x, judged by its 95 % interval [99.4, 100.7]"),
        ([finding("ratio_a", 95.9, False, reaches(89.6, 111), [89.6, 111.0])], ["--at-least", "90"], 1,
         "none could be judged"),
        ([finding("ratio_a", 99.0, False, reaches(98, 102) + "; straggler: rank 0", [98.0, 102.0])],
         ["--at-least", "90"], 1, "none could be judged"),
        # ... or above 100 % while its interval reaches down to 100 % (noise about the ideal) ...
        ([finding("ratio_a", 100.04, False, SUPERLINEAR, [98.2, 101.0])], ["--at-least", "90"], 0,
         "PASS matmul_scaling.ratio_a = 100 x, judged by its 95 % interval [98.2, 101] (flagged only because "
         "its value is above 100 %"),
        # ... but never one wholly above its ideal (superlinear beyond noise), nor a flag that does
        # not fit its value.
        ([finding("ratio_a", 103.0, False, SUPERLINEAR, [100.5, 106.0])], ["--at-least", "90"], 1,
         "none could be judged"),
        ([finding("ratio_a", 100.5, False, reaches(99, 102), [99.0, 102.0])], ["--at-least", "90"], 1,
         "none could be judged"),
        # A reliable ratio is judged by its value, whatever its interval.
        ([finding("ratio_a", 0.85, ci95=[0.8, 0.95])], ["--at-most", "0.9"], 0,
         "PASS matmul_scaling.ratio_a = 0.85 x (bar"),
        # Nothing judged, or nothing of that name: a failure, never a silent pass.
        ([finding("ratio_a", 0.5, reliable=False)], ["--at-most", "0.9"], 1, "none could be judged"),
        ([finding("other", 0.5)], ["--at-most", "0.9"], 1, "no such finding"),
    ]
    for findings, bar, expected, text in cases:
        code, out = run(script, findings, *bar)
        if code != expected or text not in out:
            errors.append(f"{[(f['name'], f['value'], f['reliable']) for f in findings]} {bar}: "
                          f"expected exit {expected} and '{text}', got exit {code}:\n{out}")
        if any(f["reliable"] is False and "ci95" not in f for f in findings) and "PASS matmul_scaling.ratio_a" in out:
            errors.append(f"an unreliable finding was passed:\n{out}")
    for e in errors:
        print("FAIL", e)
    total = len(cases) + len(launch_cases)
    print(f"{total - len(errors)} of {total} cases as expected")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
