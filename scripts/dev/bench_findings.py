#!/usr/bin/env python3
"""scripts/dev/bench.sh's check of a run's findings against a bar, from its run.json:

  bench_findings.py RUN_DIR PREFIX --at-least BAR [--goal GOAL]
  bench_findings.py RUN_DIR PREFIX --at-most BAR [--goal GOAL]

Every finding whose name starts with PREFIX gets one line: PASS or FAIL against BAR (and whether
GOAL is met), or "----" and not judged when its run flagged it unreliable: a figure drawn from an
unreliable row is unreliable, so it neither passes nor fails a bar. One exception: a ratio flagged
only because its two medians' 95 % intervals overlap is judged by its own 95 % interval (ci95)
where that lies wholly on one side of the bar. The flag says its side of 1 is not established,
which says nothing of a bar elsewhere: SUMMA level with ScaLAPACK at p = 1 (1.000, interval
[0.97, 1.03]) is within a bar of 1.11 whichever side of 1 it lies on. The same for an efficiency
flagged only because its interval reaches above 100 %, or only because its value lies above 100 %
while its interval reaches down to 100 % or below: either way the ideal's side is open, and 99.9 %
with [99.4, 101] % (or 100.01 % with [98.2, 101] %) meets a bar of 90 % whichever side of 100 % it
lies on (the Xeon VM's multi_gpu_concurrency, 2026-12-06: two ranks each alone on its core, whose
ideal is noise's midpoint). One whose whole interval lies above 100 % is superlinear beyond noise,
a cache effect or a miscount that may move its interval too, and stays unjudged.

Where RUN_DIR holds several runs (launches of one job: bench.sh's SUMMA / ScaLAPACK rows), each finding
is judged once, by the median of the launches' values: a spell over one launch's case (the
cases of a job run one after the other, so a slow minute lands on one side of a ratio) moves one
value of three, not the verdict. A launch's value counts where its run judged it or would by its
interval (reliable, or flagged only as above); one flagged for anything else is set aside and
named. The median is judged where the launches that count are more than half of them, else not.
Runs without any finding that starts with PREFIX (other inputs' runs) are not launches.
Exits 1 when a judged finding misses its bar, when none matches PREFIX or when none could be
judged; 2 on bad arguments."""
import argparse
import json
import os
import re
import sys

from run_records import launches_median, run_json_paths


# The flags an interval answers for, io::results.hpp's words: a ratio's (its side of 1 is open),
# an efficiency's at or below 100 % whose interval reaches above it, and a superlinear one whose
# interval reaches down to 100 % (for both, its side of the ideal is open). Each is one reason; a
# second one beside it is joined with "; " and matches none.
OVERLAP = "the two medians' 95 % intervals overlap"
REACHES_IDEAL = re.compile(r"its 95 % interval \[[^;\]]*\] % reaches above 100 %: not told apart from superlinear")
SUPERLINEAR = "superlinear (above 100 %): noise or cache effects, not a real speedup"


def side_open_flag(finding):
    """The words of the one flag that finding's own interval answers for, or None."""
    because, value = finding.get("unreliable_because", ""), finding.get("value")
    if because == OVERLAP:
        return f"{OVERLAP}: its side of 1 is open"
    if REACHES_IDEAL.fullmatch(because) and value is not None and value <= 100:
        return "its interval reaches above 100 %: its side of the ideal is open"
    interval = finding.get("ci95")
    if because == SUPERLINEAR and interval and interval[0] <= 100:
        return "its value is above 100 % but its interval reaches down to it: its side of the ideal is open"
    return None


def interval_verdict(finding, bar, meets):
    """PASS or FAIL for an unreliable finding whose only flag is one side_open_flag names and whose
    95 % interval lies wholly within or wholly past the bar; None for every other finding (judged
    as usual or not at all)."""
    interval = finding.get("ci95")
    if finding.get("reliable", True) or side_open_flag(finding) is None or not interval:
        return None
    low, high = interval
    if meets(low, bar) and meets(high, bar):
        return "PASS"
    if not meets(low, bar) and not meets(high, bar):
        return "FAIL"
    return None


def goal_text(value, goal, sign, meets):
    if goal is None:
        return ""
    return "; goal met" if value is not None and meets(value, goal) else f"; goal {sign} {goal:g} not met"


def median_of_launches(launches, paths, args, bar, sign, meets):
    """The verdicts of several launches' findings, one per name, by the median of the values that
    count (see the module's notes); 0 when every judged median meets the bar."""
    ok, judged = True, 0
    for name in sorted({f["name"] for run in launches for f in run}):
        counted, set_aside, notes = [], [], []
        for path, run in zip(paths, launches):
            f = next((g for g in run if g["name"] == name), None)
            notes += [f["note"]] if f is not None and f.get("note") else []
            launch = os.path.basename(os.path.dirname(path))
            if f is None or f.get("value") is None:
                set_aside.append(f"{launch}: no value")
            elif f.get("reliable", True) or side_open_flag(f) is not None:
                counted.append(f["value"])
            else:
                set_aside.append(f"{launch}: {f.get('unreliable_because')}")
        # The launches' values, then the note that says which case (n, grid): one name is checked
        # in several jobs (n = 2048 and 4096).
        values = ", ".join(f"{v:.4g}" for v in counted) + (f"] [{notes[0]}" if notes else "")
        head = f"{name}: the median of {len(counted)} of {len(paths)} launches"
        aside = f"; set aside: {'; '.join(set_aside)}" if set_aside else ""
        median = launches_median(counted, len(paths))
        if median is None:
            print(f"---- {head} (not judged: fewer than half of the launches count{aside}) [{values}]")
            continue
        judged += 1
        verdict = "PASS" if meets(median, bar) else "FAIL"
        ok = ok and verdict == "PASS"
        print(f"{verdict} {head} = {median:.4g} (bar {sign} {bar:g}{goal_text(median, args.goal, sign, meets)}"
              f"{aside}) [{values}]")
    if not judged:
        print(f"FAIL {args.prefix} in {os.path.basename(os.path.normpath(args.run_dir))}: no finding had "
              "more than half of its launches counted")
        return 1
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", help="a run directory, or a directory holding one")
    parser.add_argument("prefix", help="the findings' name prefix, e.g. efficiency_")
    side = parser.add_mutually_exclusive_group(required=True)
    side.add_argument("--at-least", type=float, dest="at_least", help="bar: value >= BAR")
    side.add_argument("--at-most", type=float, dest="at_most", help="bar: value <= BAR")
    parser.add_argument("--goal", type=float, help="a stricter figure, reported beside the verdict")
    args = parser.parse_args()
    paths = run_json_paths(args.run_dir)
    if not paths:
        print(f"FAIL {args.prefix}: no run.json in {args.run_dir}")
        return 1
    # The launches: the runs with such a finding (a results/ directory may hold other inputs' runs).
    launches, launch_paths = [], []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            mine = [g for g in json.load(f).get("findings", []) if g["name"].startswith(args.prefix)]
        if mine:
            launches.append(mine)
            launch_paths.append(path)
    if not launches:
        print(f"FAIL {args.prefix}: no such finding in {' or '.join(paths)}")
        return 1
    found = launches[0]
    at_least = args.at_least is not None
    bar = args.at_least if at_least else args.at_most
    sign = ">=" if at_least else "<="
    meets = (lambda v, b: v >= b) if at_least else (lambda v, b: v <= b)
    if len(launches) > 1:
        return median_of_launches(launches, launch_paths, args, bar, sign, meets)
    ok, judged = True, 0
    for f in found:
        value = f.get("value")
        shown = "n/a" if value is None else f"{value:.4g}"
        head = f"{f['experiment']}.{f['name']} = {shown} {f['unit']}"
        by_interval = interval_verdict(f, bar, meets)
        if not f.get("reliable", True) and by_interval is None:
            print(f"---- {head} (not judged: unreliable: {f.get('unreliable_because')}) [{f['note']}]")
            continue
        judged += 1
        if by_interval is not None:
            low, high = f["ci95"]
            head += (f", judged by its 95 % interval [{low:.4g}, {high:.4g}] (flagged only because "
                     f"{side_open_flag(f)}, its side of the bar is not)")
            verdict = by_interval
        else:
            verdict = "PASS" if value is not None and meets(value, bar) else "FAIL"
        ok = ok and verdict == "PASS"
        print(f"{verdict} {head} (bar {sign} {bar:g}{goal_text(value, args.goal, sign, meets)}) [{f['note']}]")
    if not judged:
        # Named by its run: bench.sh checks one prefix in several runs, and a bare prefix read
        # as if it undid the PASS lines of the run printed just above it.
        print(f"FAIL {args.prefix} in {os.path.basename(os.path.normpath(args.run_dir))}: every such finding "
              "was unreliable, none could be judged")
        return 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
