#!/usr/bin/env python3
"""run.json against docs/run.schema.json: a real run (LAUNCHER... MINIGPU INPUT, into a fresh
directory) must validate, and records broken in the ways the schema exists to catch (a 0
placeholder turned into a string, a null without its reason, an unreliable flag without one,
a result without its samples) must not; a bfloat16 matmul run must validate with every row's error against
float64 filled in. Needs python3-jsonschema (Debian's interpreter is used
when this one lacks it). Usage: check_schema.py SCHEMA [LAUNCHER...] MINIGPU INPUT"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from system_python import require  # noqa: E402

jsonschema = require("jsonschema", "python3-jsonschema")


def broken_copies(record):
    """(what, record) pairs that the schema must refuse."""
    out = []
    def variant(what, change):
        r = copy.deepcopy(record)
        change(r)
        out.append((what, r))
    variant("a finding's value as text", lambda r: r["findings"][0].update(value="0"))
    variant("a null finding without a reason", lambda r: r["findings"][0].update(value=None, note=""))
    variant("an unreliable finding without a reason",
            lambda r: r["findings"][0].update(reliable=False, unreliable_because=""))
    variant("a result without samples", lambda r: r["results"][0].pop("samples_seconds"))
    variant("an unknown status", lambda r: r.update(status="done"))
    variant("no results", lambda r: r.pop("results"))
    variant("an error measure as text", lambda r: r["results"][0].update(error={"max_abs_rel": "0.004",
                                                                               "frobenius_rel": 0.002}))
    return out


def low_precision_run(command, minigpu, tmp):
    """A bfloat16 matmul's run.json, whose rows carry an error against float64 (quickstart's do not)."""
    path = os.path.join(tmp, "bf16.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write("run: {name: bf16, warmups: 0, repetitions: 2}\nexperiments:\n"
                "  - {name: matmul, sizes: [16, 64], dtypes: [bfloat16], variants: [tiled], devices: [cpu]}\n")
    out = os.path.join(tmp, "bf16")
    subprocess.run(command + [minigpu, "run", path, "--output-dir", out], capture_output=True, text=True,
                   timeout=300, check=True)
    (found,) = glob.glob(os.path.join(out, "*", "run.json"))
    with open(found, encoding="utf-8") as f:
        return json.load(f)


def main() -> int:
    schema_path, *command, minigpu, input_path = sys.argv[1:]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(command + [minigpu, "run", input_path, "--output-dir", tmp, "--repetitions", "3"],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            print(proc.stdout[-3000:], proc.stderr[-3000:])
            return 1
        (path,) = glob.glob(os.path.join(tmp, "*", "run.json"))
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        low = low_precision_run(command, minigpu, tmp)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(record)]
    errors += [f"bfloat16 run: {'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(low)]
    if not all(r["error"] and 0 < r["error"]["frobenius_rel"] < r["error"]["max_abs_rel"] for r in low["results"]):
        errors.append(f"a bfloat16 row without its error against float64: {[r['error'] for r in low['results']]}")
    if not record["findings"]:
        errors.append("the run has no findings to check")
    else:
        errors += [f"the schema accepts {what}" for what, r in broken_copies(record) if validator.is_valid(r)]
    print("\n".join(errors) or f"{path}: valid ({len(record['results'])} results, {len(record['findings'])} findings)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
