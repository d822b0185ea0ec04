#!/usr/bin/env python3
"""A resumed matmul_scaling run keeps its model: every row, carried over or measured, has the
model's prediction (model_s, and the model_error_pct that it and the row's own median give), and
run.json has its scaling_model. Carried-over rows had lost their prediction, and a resume whose
rows were all carried over had lost the scaling_model as well. A finding drawn from a carried-over
row and a fresh one says it compares two runs (a 144 % efficiency read "cache effects" after a
Ctrl-C and resume); findings from one run's rows do not.

Usage: check_resume_model.py MINIGPU MPIEXEC
Two runs of one small input on 2 ranks: a complete one, and a copy of it cut to its first row
and marked interrupted, as a Ctrl-C after the first case leaves it. Both are resumed, and the
resumed cut run is cut again after its second row and resumed once more."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

INPUT = """run: {name: resumed_model, repetitions: 3, warmups: 0}
experiments:
  - {name: matmul_scaling, n: 256, ranks: [1, 2], decompositions: [row, summa], dtypes: [float64], device: cpu}
"""


def minigpu_run(command, what):
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        sys.exit(f"FAIL {what}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")


def model_problems(run_dir, carried_over):
    record = json.load(open(os.path.join(run_dir, "run.json")))
    problems = []
    if not (record.get("scaling_model") or {}).get("intra_node"):
        problems.append("no scaling_model in run.json")
    rows = [r for r in record["results"] if r["experiment"] == "matmul_scaling"]
    kept = [r for r in rows if r["check"].endswith("[resumed]")]
    if len(rows) != 4 or len(kept) != carried_over:
        problems.append(f"{len(rows)} rows, {len(kept)} carried over; expected 4 and {carried_over}")
    for r in rows:
        v, median = r.get("values") or {}, r["seconds"]["median"]
        if not (v.get("model_s") or 0) > 0 or v.get("model_error_pct") is None:
            problems.append(f"{r['case']} ({r['check']}): no model_s / model_error_pct in {v}")
            continue
        want = 100 * (v["model_s"] - median) / median
        if abs(want - v["model_error_pct"]) > 1e-6 * max(1.0, abs(want)):
            problems.append(f"{r['case']}: model_error_pct {v['model_error_pct']}, its model_s and median give {want}")
    return problems + across_runs_problems(record, 0 < carried_over < len(rows))


def across_runs_problems(record, some_carried_over):
    """A finding drawn from a carried-over row and a row measured now compares two processes: it must
    say so, and no other finding may. Where some rows were carried over, some finding mixes them."""
    results, problems, mixed = record["results"], [], 0
    for f in record["findings"]:
        if f["value"] is None:
            continue
        # A row's marks count the resumes since it was measured: one count, one run.
        runs = {results[i - 1]["check"].count("[resumed]") for i in f["drawn_from"]}
        says = f"compares rows of {len(runs)} runs" in f["unreliable_because"]
        mixed += len(runs) > 1
        if says != (len(runs) > 1):
            problems.append(f"finding {f['name']} (rows {f['drawn_from']}): '{f['unreliable_because']}'")
    if some_carried_over and not mixed:
        problems.append("no finding drawn from both a carried-over row and a fresh one")
    return problems


def main():
    minigpu, mpiexec = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as tmp:
        input_path = os.path.join(tmp, "in.yaml")
        with open(input_path, "w") as f:
            f.write(INPUT)
        launch = [mpiexec, "-n", "2", minigpu, "run", input_path]
        minigpu_run(launch + ["--output-dir", os.path.join(tmp, "complete")], "the first run")
        (name,) = os.listdir(os.path.join(tmp, "complete"))
        complete = os.path.join(tmp, "complete", name)
        # The same run as an interrupt after its first case leaves it: one row, status interrupted.
        cut = os.path.join(tmp, "cut", name + ".interrupted")
        shutil.copytree(complete, cut)
        record = json.load(open(os.path.join(cut, "run.json")))
        record["results"], record["findings"], record["status"] = record["results"][:1], [], "interrupted"
        record.pop("scaling_model", None)
        with open(os.path.join(cut, "run.json"), "w") as f:
            json.dump(record, f)
        failures = []
        for run_dir, carried_over in ((cut, 1), (complete, 4)):
            minigpu_run(launch + ["--resume", run_dir], f"--resume {run_dir}")
            done = run_dir[: -len(".interrupted")] if run_dir.endswith(".interrupted") else run_dir
            failures += [f"{os.path.basename(os.path.dirname(done))}: {p}" for p in model_problems(done, carried_over)]
        # The resumed cut run interrupted again after its second case and resumed: its first row
        # now comes from two resumes back, its second from one, the rest from this run.
        twice = os.path.join(tmp, "twice", name + ".interrupted")
        shutil.copytree(cut[: -len(".interrupted")], twice)
        record = json.load(open(os.path.join(twice, "run.json")))
        record["results"], record["findings"], record["status"] = record["results"][:2], [], "interrupted"
        record.pop("scaling_model", None)
        with open(os.path.join(twice, "run.json"), "w") as f:
            json.dump(record, f)
        minigpu_run(launch + ["--resume", twice], f"--resume {twice}")
        failures += [f"twice: {p}" for p in model_problems(twice[: -len(".interrupted")], 2)]
    if failures:
        sys.exit("FAIL " + "\nFAIL ".join(failures))
    print("both resumed runs kept the model for every row")


if __name__ == "__main__":
    main()
