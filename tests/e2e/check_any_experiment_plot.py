#!/usr/bin/env python3
"""An experiment without a drawer of its own is still drawn: plot.py hands it to
plotlib/any_experiment.py, which gives every row a bar (tagged with the row it shows, its
height the row's median time), hollow where the row is unreliable, names each bar by the
parameters that tell the cases apart, states the shared ones once, and puts every finding of
the experiment in the title. A drawer of its own still wins. A run interrupted before its
first case says that it has nothing to draw, and why.
Usage: check_any_experiment_plot.py SCRIPTS_DIR"""
import contextlib
import io
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from run_fixture import write_run  # noqa: E402
from system_python import require  # noqa: E402

matplotlib = require("matplotlib", "python3-matplotlib")
matplotlib.use("Agg")


def row(variant, dtype, median, reliable=True):
    return {"experiment": "novel", "case": f"novel {variant} n=64", "params": {"variant": variant, "n": "64"},
            "device": "cpu", "dtype": dtype, "seconds": {"median": median, "median_ci95": [median, median]},
            "flops": 0, "bytes": 1e6, "gflops": 0, "gbps": 1e6 / median / 1e9, "reliable": reliable,
            "verified": True, "check": "ok"}


def main():
    scripts, errors = sys.argv[1], []
    sys.path.insert(0, scripts)
    import plot  # noqa: E402
    rows = [row("plain", "float32", 2e-3), row("fused", "float32", 1e-3, reliable=False),
            row("plain", "float64", 4e-3), row("fused", "float64", 2e-3)]
    finding = {"experiment": "novel", "name": "plain_over_fused_float32", "value": 2.0, "unit": "x",
               "note": "two passes vs one", "reliable": True}
    experiments = [{"name": "novel", "figure": "novel.png", "description": "a new experiment"},
                   {"name": "lazy", "figure": "lazy_fence.png", "description": "lazy"}]
    with tempfile.TemporaryDirectory() as tmp:
        lazy = dict(row("fenced", "float32", 1e-3), experiment="lazy", params={"variant": "fenced", "elements": "64"})
        write_run(tmp, "novel", rows + [lazy], [finding], experiments=experiments)
        figures = plot.figures(tmp)
        if set(figures) != {"novel.png", "lazy_fence.png"}:
            errors.append(f"figures drawn: {sorted(figures)}, expected novel.png and lazy_fence.png")
        fig = figures.get("novel.png")
        if fig is not None:
            ax = fig.axes[0]
            bars = [p for p in ax.patches if getattr(p, "minigpu", {}).get("kind") == "bar"]
            shown = {p.minigpu["source"][1]: p for p in bars}
            if sorted(shown) != [0, 1, 2, 3]:
                errors.append(f"bars show rows {sorted(shown)}, expected every row of novel (0-3)")
            for i, r in enumerate(rows):
                p = shown.get(i)
                if p is None:
                    continue
                if abs(p.get_height() - r["seconds"]["median"] * 1e3) > 1e-9:
                    errors.append(f"row {i}'s bar is {p.get_height()} ms high, its median {r['seconds']['median']} s")
                if p.get_fill() != r["reliable"]:
                    errors.append(f"row {i}: filled={p.get_fill()}, reliable={r['reliable']}")
            names = sorted({t.get_text() for t in ax.get_xticklabels()})
            if names != ["fused", "plain"]:
                errors.append(f"bar names {names}, expected the varying parameter's values [fused, plain]")
            if "n=64" not in ax.get_xlabel():
                errors.append(f"the shared parameter n=64 is not stated: {ax.get_xlabel()!r}")
            if "plain_over_fused_float32" not in ax.get_title():
                errors.append(f"the finding is not in the title: {ax.get_title()!r}")
        lazy_fig = figures.get("lazy_fence.png")
        if lazy_fig is not None and "fenced vs unfenced" not in lazy_fig._suptitle.get_text():
            errors.append("lazy was not drawn by its own drawer (plotlib/lazy.py)")
    # A run interrupted before its first case has nothing to draw, and says why, not that none of
    # its experiments draws a figure.
    with tempfile.TemporaryDirectory() as tmp:
        write_run(tmp, "novel", [], [], experiments=experiments, status="interrupted")
        said = io.StringIO()
        with contextlib.redirect_stdout(said):
            rc = plot.main([tmp])
        if rc != 0 or "no case finished in it (status 'interrupted'): nothing to draw" not in said.getvalue():
            errors.append(f"an interrupted run without cases: exit {rc}, said {said.getvalue()!r}")
    for e in errors:
        print("FAIL:", e)
    if errors:
        sys.exit(1)
    print("any_experiment: every row a bar, hollow where unreliable, named by what varies; own drawers win")


if __name__ == "__main__":
    main()
