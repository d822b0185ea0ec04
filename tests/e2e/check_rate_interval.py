#!/usr/bin/env python3
"""Property test of plotlib's rate and bar arithmetic (issue 21: a bar came out a hair below
zero and matplotlib refused the figure). Over many random medians and intervals, including
intervals collapsed onto the median at either end and figures that differ in the last bits:
  - rate_of's low <= rate <= high, exactly, and rate = work / median to 1e-12;
  - bar_lengths never hands matplotlib a negative length;
  - bar_lengths refuses an interval that truly misses its value (so the guard can fail)."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from plotlib.common import bar_lengths, rate_of  # noqa: E402


def random_row(rng):
    m = 10 ** rng.uniform(-7, 2)
    shape = rng.choice(["wide", "low_end", "high_end", "collapsed", "ulp", "none"])
    lo, hi = m * rng.uniform(0.5, 1.0), m * rng.uniform(1.0, 2.0)
    if shape == "low_end":
        lo = m
    elif shape == "high_end":
        hi = m
    elif shape == "collapsed":
        lo = hi = m
    elif shape == "ulp":
        lo, hi = m * (1 - 1e-16), m * (1 + 1e-16)
    work = rng.choice([0, rng.randint(1, 1 << 40)])
    unit = rng.choice(["GB/s", "GFLOP/s"])
    row = {"seconds": {"median": m}, "bytes": work, "flops": work,
           "gbps": work / m / 1e9, "gflops": work / m / 1e9}  # the runner's expression
    if shape != "none":
        row["seconds"]["median_ci95"] = [lo, hi]
    return row, unit, work, m


def main():
    rng = random.Random(int(os.environ.get("SEED", "20261124")))
    for trial in range(20000):
        row, unit, work, m = random_row(rng)
        rate, low, high = rate_of(row, unit)
        if not low <= rate <= high:
            sys.exit(f"trial {trial}: rate {rate!r} outside [{low!r}, {high!r}] for {row}")
        if work and abs(rate - work / 1e9 / m) > 1e-12 * rate:
            sys.exit(f"trial {trial}: rate {rate!r} is not work / median = {work / 1e9 / m!r}")
        below, above = bar_lengths([(0, rate, low, high, row)])
        if below[0] < 0 or above[0] < 0:
            sys.exit(f"trial {trial}: negative bar {below[0]!r}, {above[0]!r}")
    # A finding whose interval misses its value by rounding is drawn; one that misses it by
    # more is refused.
    if bar_lengths([(0, 1.0, 1.0 + 1e-15, 2.0, {})]) != [[0.0], [1.0]]:
        sys.exit("a rounding-level miss was not clipped to a zero-length bar")
    try:
        bar_lengths([(0, 1.0, 1.1, 2.0, {})])
        sys.exit("an interval that misses its value by 10 % was accepted")
    except ValueError:
        pass
    print("rate_of / bar_lengths: 20000 random rows, every bar non-negative and every rate inside its interval")


if __name__ == "__main__":
    main()
