#!/usr/bin/env python3
"""Runs `minigpu run QUICKSTART_YAML` into a fresh directory, then `plot.py` on the result, and
checks that every figure expected from the experiments in results.csv exists and is a real
image: PNG signature, IHDR width and height >= 300 px, more than 10 KB, not one flat colour,
and that plot.py printed its path. Usage: check_plots.py MINIGPU QUICKSTART_YAML PLOT_PY"""
import csv
import os
import struct
import subprocess
import sys
import tempfile

EXPECTED = {  # experiment -> figure, as in scripts/plot.py
    "matmul": "matmul_gflops.png", "transfer": "transfer_bandwidth.png", "lazy": "lazy_fence.png",
    "logging": "logging_sync.png", "linear": "linear_training.png", "matmul_scaling": "scaling.png",
    "multi_gpu_concurrency": "concurrency.png",
}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SYSTEM_PYTHON = "/usr/bin/python3"


def python_with_matplotlib():
    """This interpreter if it has matplotlib, else Debian's (a pyenv/venv python3 may lack it)."""
    for python in (sys.executable, SYSTEM_PYTHON):
        if os.path.exists(python) and subprocess.run([python, "-c", "import matplotlib"],
                                                     capture_output=True).returncode == 0:
            return python
    return None


def check_png(path, python):
    """An error message, or None for a valid, non-trivial PNG."""
    if not os.path.isfile(path):
        return "missing"
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR":
        return "not a PNG (bad signature or no IHDR chunk first)"
    width, height = struct.unpack(">II", head[16:24])
    if width < 300 or height < 300:
        return f"too small: {width}x{height} px"
    size = os.path.getsize(path)
    if size <= 10 * 1024:
        return f"file only {size} bytes"
    std = subprocess.run([python, "-c", "import sys, matplotlib.image as m; print(m.imread(sys.argv[1]).std())",
                          path], capture_output=True, text=True)
    if std.returncode != 0:
        return "matplotlib cannot decode it: " + std.stderr.strip()[-300:]
    if not float(std.stdout) > 0:
        return "a single flat colour"
    return None


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    minigpu, quickstart, plot_py = sys.argv[1:]
    python = python_with_matplotlib()
    if python is None:
        print("matplotlib is not installed (apt-get install python3-matplotlib)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = os.path.join(tmp, "results")
        run = subprocess.run([minigpu, "run", quickstart, "--output-dir", out_dir],
                             capture_output=True, text=True, timeout=900)
        if run.returncode != 0:
            print(run.stdout[-3000:], run.stderr[-3000:], f"minigpu run: exit code {run.returncode}", sep="\n")
            return 1
        run_dir = os.path.join(out_dir, os.listdir(out_dir)[0])
        with open(os.path.join(run_dir, "results.csv"), newline="", encoding="utf-8") as f:
            experiments = {row["experiment"] for row in csv.DictReader(f)}
        expected = sorted(EXPECTED[e] for e in experiments if e in EXPECTED)
        plot = subprocess.run([python, plot_py, run_dir], capture_output=True, text=True, timeout=600)
        print(plot.stdout, plot.stderr, sep="")
        errors = [] if plot.returncode == 0 else [f"plot.py: exit code {plot.returncode}"]
        printed = {os.path.basename(line.strip()) for line in plot.stdout.splitlines()}
        for name in expected:
            problem = check_png(os.path.join(run_dir, name), python)
            if problem:
                errors.append(f"{name}: {problem}")
            elif name not in printed:
                errors.append(f"{name}: written but plot.py did not print its path")
        empty = subprocess.run([python, plot_py, tmp], capture_output=True, text=True)
        if empty.returncode != 2 or len(empty.stderr.strip().splitlines()) != 1:
            errors.append(f"plot.py on a directory without results.csv: exit {empty.returncode}, expected 2"
                          " with a one-line error")
    if not expected:
        errors.append(f"no plottable experiment in results.csv ({sorted(experiments)})")
    print("\n".join(errors) if errors else f"{len(expected)} figures OK: {', '.join(expected)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
