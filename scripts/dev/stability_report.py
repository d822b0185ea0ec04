#!/usr/bin/env python3
"""How much each finding moved across several runs of one input, and whether its reliability
flag held: a finding flagged in some runs and not in others is not yet a stable headline.

Usage: stability_report.py RUN_JSON...   (the run.json of each run, in run order)"""
import json
import statistics
import sys


def main(paths):
    if paths[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    records = [json.load(open(p, encoding="utf-8")) for p in paths]
    names = []
    for record in records:
        for f in record["findings"]:
            key = f"{f['experiment']}.{f['name']}"
            if key not in names:
                names.append(key)
    print(f"{len(records)} runs of {records[0]['input_file']} on {records[0]['mpi']['size']} rank(s)")
    print(f"{'finding':58} {'unit':8} {'median':>10} {'min':>10} {'max':>10} {'spread':>8}  flagged")
    inconsistent = 0
    for key in names:
        found = [next((f for f in r["findings"] if f"{f['experiment']}.{f['name']}" == key), None)
                 for r in records]
        present = [f for f in found if f is not None]
        values = [f["value"] for f in present if f["value"] is not None]
        flagged = sum(not f["reliable"] for f in present)
        unit = present[0]["unit"]
        if values:
            median = statistics.median(values)
            spread = f"{100 * (max(values) - min(values)) / abs(median):7.1f}%" if median else "      -"
            row = f"{median:10.4g} {min(values):10.4g} {max(values):10.4g} {spread}"
        else:
            row = f"{'n/a':>10} {'':10} {'':10} {'':>8}"
        consistent = flagged in (0, len(present)) and len(present) == len(records)
        inconsistent += not consistent
        mark = " " if consistent else "!"
        print(f"{mark}{key:57} {unit:8} {row}  {flagged}/{len(present)}")
    print(f"spread = (max - min) / median across runs; flagged = runs marking it unreliable. "
          f"{inconsistent} finding(s) flagged in some runs only (marked !)")
    return 1 if inconsistent else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
