"""Hand-made run directories for the tests of the report scripts: the least of run.json (and
only what those scripts read) that a real `minigpu run` would write."""
import json
import os


def write_run(run_dir, name, results=(), findings=(), **extra):
    """RUN_DIR/run.json for run `name` with these result rows and findings, plus any other
    top-level sections (ceilings, ...); returns its path."""
    os.makedirs(run_dir, exist_ok=True)
    path = os.path.join(run_dir, "run.json")
    record = {"resolved_input": {"run": {"name": name}}, "results": list(results), "findings": list(findings),
              **extra}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(record, f)
    return path
