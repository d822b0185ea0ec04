#!/usr/bin/env python3
"""Runs `minigpu run INPUT` (optionally under a launcher such as mpiexec) into a fresh
directory and checks the results: exit code 0, exactly one run directory, results.csv and
run.json parse, they agree, every experiment of the input produced rows, and every row
verified. Usage: check_run.py [LAUNCHER...] MINIGPU INPUT"""
import csv
import json
import os
import subprocess
import sys
import tempfile


def main() -> int:
    *command, minigpu, input_path = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = os.path.join(tmp, "results")
        proc = subprocess.run(command + [minigpu, "run", input_path, "--output-dir", out_dir],
                              capture_output=True, text=True, timeout=900)
        print(proc.stdout[-4000:])
        print(proc.stderr[-4000:], file=sys.stderr)
        if proc.returncode != 0:
            print(f"exit code {proc.returncode}, expected 0")
            return 1
        runs = os.listdir(out_dir)
        if len(runs) != 1 or runs[0].endswith(".partial"):
            print(f"expected one finished run directory, found {runs}")
            return 1
        run_dir = os.path.join(out_dir, runs[0])
        with open(os.path.join(run_dir, "results.csv"), newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
            record = json.load(f)
    errors = []
    if not rows:
        errors.append("results.csv has no rows")
    if len(rows) != len(record["results"]):
        errors.append(f"{len(rows)} CSV rows but {len(record['results'])} JSON results")
    wanted = {e["name"] for e in record["resolved_input"]["experiments"]}
    seen = {r["experiment"] for r in rows}
    if wanted - seen:
        errors.append(f"no rows for {sorted(wanted - seen)}")
    errors += [f"row not verified: {r['experiment']} {r['case']}: {r['check']}"
               for r in rows if r["verified"] != "true"]
    errors += [f"bad median time in {r['experiment']} {r['case']}" for r in rows if not float(r["median_s"]) >= 0]
    if record["mpi"]["size"] != len(record["mpi"]["ranks"]):
        errors.append("rank map does not cover every rank")
    for key in ("minigpu", "kokkos", "host", "started", "finished", "resolved_input"):
        if key not in record:
            errors.append(f"run.json lacks {key}")
    print("\n".join(errors) if errors else f"{len(rows)} rows verified from {len(seen)} experiments")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
