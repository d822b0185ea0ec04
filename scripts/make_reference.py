#!/usr/bin/env python3
"""A reference file for `minigpu compare --reference` from a real run: the subset of its
run.json a comparison reads (each case's key, median and median's 95 % interval, repetitions,
verified; the findings) and a `reference` block naming the hardware and software, all taken
from the run's own provenance. Format: inputs/references/README.md, docs/reference.schema.json.

Usage: make_reference.py RUN_DIR_OR_RUN_JSON OUT.json [--description TEXT] [--note TEXT]..."""
import argparse
import json
import os
import sys


def reference_from(record, source, description, notes):
    host, blas, kokkos = record["host"], record["blas"], record["kokkos"]
    build = record.get("build", {})
    hardware = (f"{host['cpu']}, {host['logical_cores']} logical cores, "
                f"{host.get('vector_isa', '?')}; {record['mpi']['size']} MPI rank(s), "
                f"{record['threads']['kokkos_host']} thread(s) per rank")
    software = (f"miniGPU {record['minigpu']['version']} (git {record['minigpu']['git']}), "
                f"Kokkos {kokkos['version']} {'+'.join(kokkos['backends'])}, "
                f"{blas['library']} ({blas.get('config', '')}, kernels {blas.get('core', '?')}), "
                f"{build.get('compiler', '?')} {build.get('flags', '')}".strip())
    block = {"description": description or f"miniGPU run of {record['input_file']}",
             "hardware": hardware, "software": software, "measured": record["started"],
             "source": source}
    if notes:
        block["notes"] = notes
    results = []
    for r in record["results"]:
        results.append({"experiment": r["experiment"], "case": r["case"], "device": r["device"],
                        "dtype": r["dtype"], "params": r.get("params", {}),
                        "repetitions": r["repetitions"], "verified": r["verified"],
                        "seconds": {"median": r["seconds"]["median"],
                                    "median_ci95": r["seconds"]["median_ci95"]}})
    findings = []
    for f in record["findings"]:
        entry = {k: f[k] for k in ("experiment", "name", "value", "unit", "reliable")}
        if "ci95" in f:
            entry["ci95"] = f["ci95"]
        # The run's reasons travel with the figure: compare prints them under its findings table.
        if not f.get("reliable", True) and f.get("unreliable_because"):
            entry["unreliable_because"] = f["unreliable_because"]
        if f.get("value") is None and f.get("note"):
            entry["note"] = f["note"]
        findings.append(entry)
    # What compare checks the two sides agree on besides the CPU and the ranks (its warnings).
    setup = {"kokkos": {k: kokkos[k] for k in ("version", "default_execution_space") if k in kokkos},
             "threads": {k: v for k, v in record.get("threads", {}).items() if k == "kokkos_host"},
             "blas": {k: blas[k] for k in ("core",) if k in blas}}
    return {"reference": block, "host": {"cpu": host["cpu"]}, "mpi": {"size": record["mpi"]["size"]},
            **{k: v for k, v in setup.items() if v}, "results": results, "findings": findings}


def dumps(reference):
    """The block indented, then one line per result and finding, so a diff shows a case."""
    lines = ["{", ' "reference": ' + json.dumps(reference["reference"], indent=2, ensure_ascii=False)
             .replace("\n", "\n ") + ","]
    for key in ("host", "mpi", "kokkos", "threads", "blas"):
        if key in reference:
            lines.append(f' "{key}": {json.dumps(reference[key], ensure_ascii=False)},')
    for key in ("results", "findings"):
        items = [json.dumps(item, ensure_ascii=False) for item in reference[key]]
        lines.append(f' "{key}": [\n  ' + ",\n  ".join(items) + "\n ]" + ("," if key == "results" else ""))
    return "\n".join(lines) + "\n}\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a run directory or its run.json")
    parser.add_argument("out", help="the reference file to write")
    parser.add_argument("--description", default="")
    parser.add_argument("--note", action="append", default=[])
    args = parser.parse_args()
    path = os.path.join(args.run, "run.json") if os.path.isdir(args.run) else args.run
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        run_name = os.path.basename(os.path.dirname(os.path.abspath(path)))
        source = f"run.json of {run_name}, reduced by scripts/make_reference.py"
        reference = reference_from(record, source, args.description, args.note)
    except (OSError, ValueError, KeyError) as e:
        print(f"make_reference.py: {path}: not a readable miniGPU run.json ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(dumps(reference))
    return 0


if __name__ == "__main__":
    sys.exit(main())
