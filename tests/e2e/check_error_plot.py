#!/usr/bin/env python3
"""matmul's figure draws each row's error against float64 as it is in run.json: a run whose
rows carry `error` (bfloat16, float16, TF32) gets a second panel whose lines are exactly those
values, max-abs and Frobenius, per series; a run without them keeps one panel.
Usage: check_error_plot.py SCRIPTS_DIR"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from run_fixture import write_run  # noqa: E402
from system_python import require  # noqa: E402

matplotlib = require("matplotlib", "python3-matplotlib")
matplotlib.use("Agg")


def row(n, dtype, error):
    median = 2.0 * n**3 / 1e11
    return {"experiment": "matmul", "case": f"tiled n={n}", "params": {"n": str(n), "variant": "tiled"},
            "device": "cpu", "dtype": dtype, "seconds": {"median": median, "median_ci95": [median, median]},
            "flops": 2.0 * n**3, "bytes": 0, "gflops": 100.0, "gbps": 0, "reliable": True, "verified": True,
            "check": "ok", "error": error}


def figure(scripts, run_dir):
    sys.path.insert(0, scripts)
    import plot  # noqa: E402
    return plot.figures(run_dir)["matmul_gflops.png"]


def main():
    scripts, errors = sys.argv[1], []
    experiments = [{"name": "matmul", "figure": "matmul_gflops.png"}]
    bf16 = {64: (3.9e-3, 1.7e-3), 256: (3.8e-3, 1.9e-3)}
    with tempfile.TemporaryDirectory() as tmp:
        rows = [row(n, "bfloat16", {"max_abs_rel": m, "frobenius_rel": f}) for n, (m, f) in bf16.items()]
        rows += [row(n, "float32", None) for n in bf16]
        write_run(os.path.join(tmp, "low"), "low", rows, experiments=experiments)
        write_run(os.path.join(tmp, "plain"), "plain", rows[2:], experiments=experiments)
        low, plain = figure(scripts, os.path.join(tmp, "low")), figure(scripts, os.path.join(tmp, "plain"))
    panels = [ax for ax in low.axes if ax.axison]
    if len(panels) != 2:
        errors.append(f"a run with errors: {len(panels)} panels, expected the rate and the error")
    else:
        lines = {tuple(line.get_ydata()) for line in panels[1].get_lines()}
        for want in ((3.9e-3, 3.8e-3), (1.7e-3, 1.9e-3)):
            if want not in lines:
                errors.append(f"error panel lacks the line {want}: {sorted(lines)}")
        if len(lines) != 2:
            errors.append(f"error panel: {len(lines)} lines, expected bfloat16's two (float32 has no error)")
    if len([ax for ax in plain.axes if ax.axison]) != 1:
        errors.append("a run without errors must keep one panel")
    for e in errors:
        print("FAIL", e)
    print("the error panel draws run.json's errors" if not errors else f"{len(errors)} failure(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
