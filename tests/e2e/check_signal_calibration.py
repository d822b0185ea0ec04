#!/usr/bin/env python3
"""Ctrl-C during a case's setup gives up the model's calibration GEMMs rather than waiting for
them, and the run it leaves is resumed whole.

Usage: check_signal_calibration.py MINIGPU MPIEXEC
A 2-rank matmul_scaling run whose rank 0 gets SIGINT as its first case's setup starts
(MINIGPU_INJECT_FAULT=0:setup:sigint), where the model calibrates: the run exits 130 and leaves
one *.interrupted directory with no case, no scaling_model, and in rank 0's `calibration` the
ping-pongs (work with the other rank, which it must finish) but no GEMM (its own work, given up;
before, all of them ran first). Rank 1, not signalled, calibrates whole and stops with it. Then
`--resume DIR` completes the run: its cases verified, its scaling_model and GEMM timings there."""
import json
import os
import subprocess
import sys
import tempfile

INPUT = """run: {name: calibration_stop, repetitions: 3, warmups: 0}
experiments:
  - {name: matmul_scaling, n: 512, ranks: [2], decompositions: [summa], dtypes: [float64], device: cpu}
"""


def run(command, extra_env=None):
    env = dict(os.environ, **(extra_env or {}))
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)


def main():
    minigpu, mpiexec = sys.argv[1:3]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        input_path = os.path.join(tmp, "in.yaml")
        with open(input_path, "w") as f:
            f.write(INPUT)
        out = os.path.join(tmp, "results")
        launch = [mpiexec, "-n", "2", minigpu, "run", input_path]
        proc = run(launch + ["--output-dir", out], {"MINIGPU_INJECT_FAULT": "0:setup:sigint"})
        said = proc.stdout[-3000:] + proc.stderr[-3000:]
        dirs = os.listdir(out) if os.path.isdir(out) else []
        if proc.returncode != 130 or len(dirs) != 1 or not dirs[0].endswith(".interrupted"):
            sys.exit(f"FAIL the signalled run: exit {proc.returncode} (expected 130), directories {dirs}\n{said}")
        stopped = os.path.join(out, dirs[0])
        record = json.load(open(os.path.join(stopped, "run.json")))
        timed = [t["what"] for t in (record.get("calibration") or {}).get("matmul_scaling", [])]
        if record.get("status") != "interrupted" or "signal 2," not in record.get("stop_reason", ""):
            problems.append(f"status {record.get('status')!r}, stop_reason {record.get('stop_reason')!r}")
        if record["results"] or "scaling_model" in record:
            problems.append(f"{len(record['results'])} results and scaling_model {'scaling_model' in record}: "
                            "expected none of either")
        if not any(w.startswith("ping-pong") for w in timed):
            problems.append(f"rank 0 recorded no ping-pong: {timed}")
        if any(w.startswith("gemm") for w in timed):
            problems.append(f"rank 0 timed GEMMs after its signal: {[w for w in timed if w.startswith('gemm')]}")
        proc = run(launch + ["--resume", stopped])
        done = stopped[: -len(".interrupted")]
        if proc.returncode != 0 or not os.path.isdir(done):
            sys.exit(f"FAIL --resume: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        record = json.load(open(os.path.join(done, "run.json")))
        timed = [t["what"] for t in (record.get("calibration") or {}).get("matmul_scaling", [])]
        rows = record["results"]
        if record.get("status") != "complete" or len(rows) != 1 or not all(r["verified"] for r in rows):
            problems.append(f"resumed: status {record.get('status')!r}, {len(rows)} rows, expected 1 verified")
        if not (record.get("scaling_model") or {}).get("gemm") or not any(w.startswith("gemm") for w in timed):
            problems.append("resumed: no scaling_model GEMM rate, or no GEMM timed")
    if problems:
        sys.exit("FAIL " + "\nFAIL ".join(problems))
    print("a Ctrl-C in setup gave up rank 0's calibration GEMMs, kept its ping-pongs, and --resume completed the run")


if __name__ == "__main__":
    main()
