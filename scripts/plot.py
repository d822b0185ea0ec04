#!/usr/bin/env python3
"""Plots a minigpu run: a PNG per experiment present, written next to its run.json.

Usage: plot.py RUN_DIR [RUN_DIR ...]
A RUN_DIR is a run directory (run.json, results.csv); a results.csv path is accepted too when
its run.json lies beside it, and a sweep's merged.csv (scripts/slurm/sweep.sh) or its directory
stands for the complete run of each of its jobs (np<R>/<run>/). Figure names, findings, ceilings and the hardware all come from
run.json: this script draws, it computes no result of its own. Prints the path of every
figure written. Exit codes: 0 done, 2 usage error (e.g. a directory without run.json).

figures(RUN_DIR) returns the same figures as matplotlib objects (tests/e2e/check_plots.py
inspects them)."""
import importlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

DPI = 100


def die(message):
    print(f"plot.py: {message}", file=sys.stderr)
    sys.exit(2)


def import_pyplot():
    """matplotlib with the Agg backend (under Debian's python3 if this one lacks it)."""
    from system_python import require
    require("matplotlib", "python3-matplotlib", exit_code=2, prefix="plot.py: ", install_missing=True).use("Agg")
    import matplotlib.pyplot as plt
    return plt


def drawer(experiment):
    """plotlib/<experiment>.py's draw(plt, run, rows), or None when the experiment has none (it is
    then drawn by plotlib/any_experiment.py): no table here. What the figure is called is
    run.json's business."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", experiment or ""):
        return None
    if not os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "plotlib", experiment + ".py")):
        return None
    return getattr(importlib.import_module("plotlib." + experiment), "draw", None)  # shared modules have none


class UsageError(Exception):
    pass


# What a run directory's name ends in while it is not complete (io/run_directory.hpp).
UNFINISHED = re.compile(r"\.(partial-\w{6}|failed-\w{6}|interrupted(-\d+)?)$")


def sweep_runs(folder):
    """The complete run directories of a sweep's jobs (np<R>/<run>/), in rank order; [] when
    `folder` is not a sweep (no np<R>/ in it)."""
    jobs = [d for d in os.listdir(folder) if re.fullmatch(r"np\d+", d) and os.path.isdir(os.path.join(folder, d))]
    runs = []
    for job in sorted(jobs, key=lambda d: int(d[2:])):
        for run in sorted(os.listdir(os.path.join(folder, job))):
            path = os.path.join(folder, job, run)
            if os.path.isfile(os.path.join(path, "run.json")) and not UNFINISHED.search(run):
                runs.append(path)
    return runs


UNWRITTEN = "a run not yet past its first case, or killed before it (no run.json yet)"


def unwritten(arg):
    """Whether ARG is a run directory with nothing in it yet (named .partial-XXXXXX, no run.json):
    `results/quickstart-*/` matches one while a run starts."""
    name = os.path.basename(os.path.normpath(arg))
    return (re.search(r"\.partial-\w{6}$", name) is not None and os.path.isdir(arg)
            and not os.path.isfile(os.path.join(arg, "run.json")))


def run_dirs_of(arg):
    """The run directories an argument stands for: a directory or a results.csv path, the one
    holding run.json; a sweep's merged.csv or directory, each job's complete run."""
    folder = os.path.dirname(os.path.abspath(arg)) if os.path.isfile(arg) and arg.endswith(".csv") else arg
    if os.path.isfile(os.path.join(folder, "run.json")):
        return [folder]
    runs = sweep_runs(folder) if os.path.isdir(folder) else []
    if runs:
        return runs
    raise UsageError(f"{arg}: no run.json (expected a minigpu run directory, or a sweep's merged.csv)")


def run_dir_of(arg):
    """The run directory for a directory or a results.csv path: the one holding run.json."""
    folder = os.path.dirname(os.path.abspath(arg)) if os.path.isfile(arg) and arg.endswith(".csv") else arg
    if not os.path.isfile(os.path.join(folder, "run.json")):
        raise UsageError(f"{arg}: no run.json (expected a minigpu run directory)")
    return folder


def figures(run_dir, plt=None):
    """{png name: matplotlib Figure} for every experiment of the run that names a figure and
    has rows; names as run.json's `experiments` gives them, in that order."""
    from plotlib.common import Run
    plt = plt or import_pyplot()
    with open(os.path.join(run_dir_of(run_dir), "run.json"), encoding="utf-8") as f:
        run = Run(json.load(f))
    if "experiments" not in run.record:
        raise UsageError(f"{run_dir}: run.json lists no experiments (written by an older minigpu): run it again")
    out = {}
    for e in run.record["experiments"]:
        rows = run.rows_of(e.get("name"))
        if not e.get("figure") or not rows:
            continue
        draw = drawer(e["name"])
        if draw is None:  # no figure of its own yet: the bars every experiment can have
            from plotlib.any_experiment import draw_any
            out[e["figure"]] = draw_any(plt, run, e["name"], rows)
            continue
        out[e["figure"]] = draw(plt, run, rows)
    return out


def write_figures(plt, run_dir):
    paths = []
    for name, fig in figures(run_dir, plt).items():
        paths.append(os.path.join(run_dir, name))
        fig.savefig(paths[-1], dpi=DPI)
        plt.close(fig)
    return paths


def why_nothing_drawn(run_dir):
    """Why a run gave no figure: none of its experiments draws one, or none of its cases finished
    (an interrupted run keeps the cases finished before the signal, maybe none)."""
    with open(os.path.join(run_dir_of(run_dir), "run.json"), encoding="utf-8") as f:
        record = json.load(f)
    if record.get("results"):
        return "no experiment with a figure"
    return f"no case finished in it (status {record.get('status', 'unknown')!r}): nothing to draw"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    try:
        given = [a for a in argv if not unwritten(a)]
        if not given:
            raise UsageError(f"{argv[0]}: {UNWRITTEN}" if len(argv) == 1 else f"every directory given is {UNWRITTEN}")
        runs = [run for a in given for run in run_dirs_of(a)]
        plt = import_pyplot()  # after it: it may run this script again under Debian's python3
        for a in argv:
            if a not in given:
                print(f"plot.py: skipped {a}: {UNWRITTEN}", file=sys.stderr, flush=True)
        for run_dir in runs:
            paths = write_figures(plt, run_dir)
            print("\n".join(paths) if paths else f"plot.py: {run_dir}: {why_nothing_drawn(run_dir)}", flush=True)
    except UsageError as e:
        die(str(e))
    return 0


def main_until_interrupted(main_of, argv):
    """main_of(argv), or 130 on Ctrl-C without a traceback (as a shell tool ends): under `minigpu
    run --plot` the run says what an interrupted drawing leaves, and figures drawn stay."""
    try:
        return main_of(argv)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main_until_interrupted(main, sys.argv[1:]))
