#!/usr/bin/env python3
"""scripts/dev/stability_report.py on hand-made run records: the spread it prints is (max - min) /
median of the runs' values, and it fails exactly when a finding's flag differs between runs.
Usage: check_stability_report.py STABILITY_REPORT_PY"""
import json
import os
import subprocess
import sys
import tempfile


def record(value, reliable):
    return {"input_file": "in.yaml", "mpi": {"size": 2},
            "findings": [{"experiment": "e", "name": "ratio", "value": value, "unit": "x", "note": "",
                          "reliable": reliable, "unreliable_because": "" if reliable else "noise"}]}


def report(script, runs):
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, r in enumerate(runs):
            paths.append(os.path.join(tmp, f"run{i}.json"))
            with open(paths[-1], "w", encoding="utf-8") as f:
                json.dump(r, f)
        proc = subprocess.run([sys.executable, script, *paths], capture_output=True, text=True)
        return proc.returncode, proc.stdout


def main(script):
    errors = []
    # Values 1.0, 1.2, 1.1: median 1.1, spread 0.2 / 1.1 = 18.2 %; flags agree.
    code, out = report(script, [record(1.0, True), record(1.2, True), record(1.1, True)])
    if code != 0 or " 18.2%" not in out or " 0/3" not in out:
        errors.append(f"consistent runs: exit {code}, expected 0 with 18.2 % and 0/3:\n{out}")
    code, out = report(script, [record(1.0, False), record(1.2, True), record(1.1, False)])
    if code != 1 or "!e.ratio" not in out or " 2/3" not in out:
        errors.append(f"a flag that changed: exit {code}, expected 1 with !e.ratio and 2/3:\n{out}")
    print("\n".join(errors) or "stability_report: spread and flag consistency as expected")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
