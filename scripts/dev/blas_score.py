#!/usr/bin/env python3
"""Scores OpenBLAS kernel sets for scripts/dev/blas_at_best.sh from their child runs.

Usage: blas_score.py DIR CANDIDATE... (each candidate's runs anywhere under DIR/blas_CANDIDATE,
the candidates in the order tried: OpenBLAS's own choice first, then the widest set). A shape's
rate is the best over a candidate's runs; a shape that failed its check in any run is left out. Prints one line per candidate and
last "CHOICE candidate kernel-set". A candidate's score is the geometric mean, over the shapes
every candidate verified, of its rate over the best rate at that shape; the first candidate
within 1 % of the best score is chosen, so a narrower set needs a real margin, not noise.
"""
import csv
import glob
import json
import math
import os
import sys

TIE = 0.01


def rates_of(candidate_dir):
    """(dtype, n) -> the best GFLOP/s over the candidate's runs (every run under the folder),
    of the shapes verified in all of them; and the kernel set OpenBLAS reported."""
    runs = sorted(os.path.dirname(p) for p in glob.glob(candidate_dir + "/**/run.json", recursive=True))
    if not runs:
        raise SystemExit(f"blas_score.py: no run under {candidate_dir}")
    core = json.load(open(os.path.join(runs[-1], "run.json"))).get("blas", {}).get("core", "?")
    best, wrong = {}, set()
    for run in runs:
        for row in csv.DictReader(open(os.path.join(run, "results.csv"))):
            shape = (row["dtype"], int(row["n"]))
            if row.get("verified") != "true" or not row.get("gflops"):
                wrong.add(shape)
            else:
                best[shape] = max(best.get(shape, 0.0), float(row["gflops"]))
    return core, {s: r for s, r in best.items() if s not in wrong}


def choose(results):
    """results: [(candidate, core, rates)] in order tried -> (scores, index of the choice)."""
    shapes = set.intersection(*(set(r) for _, _, r in results))
    if not shapes:
        raise SystemExit("blas_score.py: no shape verified by every candidate")
    best = {s: max(r[s] for _, _, r in results) for s in shapes}
    scores = [math.exp(sum(math.log(r[s] / best[s]) for s in shapes) / len(shapes))
              for _, _, r in results]
    top = max(scores)
    pick = next(i for i, sc in enumerate(scores) if sc >= top * (1 - TIE))
    return sorted(shapes), scores, pick


def main(argv):
    if any(a in ("-h", "--help") for a in argv[1:]):
        print(__doc__)
        return
    if len(argv) < 3:
        raise SystemExit("usage: blas_score.py DIR CANDIDATE...")
    results = [(c, *rates_of(f"{argv[1]}/blas_{c}")) for c in argv[2:]]
    shapes, scores, pick = choose(results)
    for (cand, core, rates), score in zip(results, scores):
        shown = ", ".join(f"{d} n={n} {rates[(d, n)]:.1f}" for d, n in shapes)
        print(f"OpenBLAS kernels '{cand}' ({core}; {shown} GFLOP/s): verified, score {score:.3f}")
    print(f"CHOICE {results[pick][0]} {results[pick][1]}")


if __name__ == "__main__":
    main(sys.argv)
