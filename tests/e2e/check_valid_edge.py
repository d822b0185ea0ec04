#!/usr/bin/env python3
"""Runs `minigpu run` on an odd but valid input and checks it is accepted: exit 0, exactly one
run directory whose run.json says "complete" with every result verified. An input may say
'# expect-directory: NAME' (the directory is NAME-<stamp>) and '# expect-results: N'.
Usage: check_valid_edge.py [LAUNCHER...] MINIGPU INPUT"""
import json
import os
import subprocess
import sys
import tempfile


def directive(lines, name):
    return [line.split(":", 1)[1].strip() for line in lines if line.startswith(f"# {name}:")]


def main() -> int:
    *command, minigpu, input_path = sys.argv[1:]
    with open(input_path, encoding="utf-8-sig") as f:
        lines = f.read().splitlines()
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = os.path.join(tmp, "results")
        proc = subprocess.run(command + [minigpu, "run", input_path, "--output-dir", out_dir],
                              cwd=tmp, capture_output=True, text=True, timeout=300)
        errors = []
        if proc.returncode != 0:
            errors.append(f"exit code {proc.returncode}, expected 0")
        runs = sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []
        if len(runs) != 1:
            errors.append(f"expected one run directory, found {runs}")
        else:
            for name in directive(lines, "expect-directory"):
                if not runs[0].startswith(name + "-") or ".partial-" in runs[0]:
                    errors.append(f"directory {runs[0]!r} is not {name!r}-<stamp>")
            with open(os.path.join(out_dir, runs[0], "run.json"), encoding="utf-8") as f:
                record = json.load(f)
            results = record["results"]
            if record["status"] != "complete":
                errors.append(f"status {record['status']!r}")
            if not results or not all(r["verified"] for r in results):
                errors.append("not every result verified: " +
                              "; ".join(f"{r['case']}: {r['check']}" for r in results if not r["verified"]))
            for count in directive(lines, "expect-results"):
                if len(results) != int(count):
                    errors.append(f"{len(results)} results, expected {count}")
    if errors:
        print(f"{input_path}:\n  " + "\n  ".join(errors))
        print("stdout:", proc.stdout, "\nstderr:", proc.stderr)
        return 1
    print(f"{os.path.basename(input_path)}: {len(results)} results, all verified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
