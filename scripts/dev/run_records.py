"""Where scripts/dev's checks find run records: a run directory's run.json, or those of the run
directories inside one (bench.sh passes either: a run's own directory or its --output-dir)."""
import glob
import json
import os
import statistics


def run_json_paths(run_dir):
    """The run.json files of RUN_DIR's runs, oldest name first; [] when it holds none."""
    inside = sorted(glob.glob(os.path.join(run_dir, "*", "run.json")))
    own = os.path.join(run_dir, "run.json")
    return inside or ([own] if os.path.isfile(own) else [])


def records(run_dirs):
    """(path, record) for every run.json of every directory in RUN_DIRS."""
    for run_dir in run_dirs:
        for path in run_json_paths(run_dir):
            with open(path, encoding="utf-8") as f:
                yield path, json.load(f)


def launches_median(counted, launches):
    """The median of COUNTED, the values of the launches that count, where they are more than half
    of LAUNCHES (how many there were); None where they are not, and the figure is not judged."""
    return statistics.median(counted) if 2 * len(counted) > launches else None
