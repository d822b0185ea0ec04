#!/usr/bin/env python3
"""Checks a minigpu run end to end: exit code 0, exactly one finished run directory,
results.csv and run.json parse and agree, every experiment of the input produced rows,
every row verified, and the rank map covers the job.

  check_run.py [LAUNCHER...] MINIGPU INPUT         run `minigpu run INPUT` into a fresh directory
  check_run.py --check-dir DIR [--ranks N]         check the single run already written into DIR
                                                   (e.g. by a batch job), expecting N MPI ranks"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile


def check_ceilings(record):
    """Every rate row names a measured ceiling, and its percentage is its rate over that ceiling."""
    errors, ceilings = [], {c["name"]: c for c in record.get("ceilings", [])}
    if not ceilings:
        return ["run.json records no ceilings"]
    for r in record["results"]:
        where, share = f"{r['experiment']} {r['case']}", r.get("ceiling")
        if not (r["gbps"] > 0 or r["gflops"] > 0) or r["experiment"] == "devices":
            continue
        if share is None:
            errors.append(f"{where}: a rate row without a ceiling")
            continue
        c = ceilings.get(share["name"])
        if c is None:
            errors.append(f"{where}: ceiling {share['name']} is not among the run's ceilings")
            continue
        rate = r["gbps"] if c["unit"] == "GB/s" else r["gflops"]
        expected = 100 * rate / (share["scale"] * c["value"])
        if abs(share["percent"] - expected) > 1e-6 * max(1.0, expected):
            errors.append(f"{where}: {share['percent']} % of {c['name']}, but {rate} / ({share['scale']} x {c['value']}) "
                          f"is {expected} %")
        if share["percent"] > 100 and not share.get("above_because"):
            errors.append(f"{where}: {share['percent']:.0f} % of its ceiling, and no reason why")
        if share["scale"] > 1 and not share["of"].startswith(f"{share['scale']} x "):
            errors.append(f"{where}: a ceiling counted {share['scale']} times does not say so: {share['of']}")
        # A host GEMM row is also a share of the FMA peak of the type it computes in, where measured;
        # past it is past what the silicon does: a reason, and the row flagged.
        peak_name = {"host_sgemm": "host_fma_f32", "host_dgemm": "host_fma_f64"}.get(share["name"])
        peak = r.get("peak")
        if peak_name in ceilings and peak is None:
            errors.append(f"{where}: a {share['name']} row without its share of {peak_name}")
        if peak is not None:
            p = ceilings.get(peak["name"])
            expected = 100 * r["gflops"] / (peak["scale"] * p["value"]) if p else None
            if p is None or peak["name"] != peak_name or abs(peak["percent"] - expected) > 1e-6 * max(1.0, expected):
                errors.append(f"{where}: peak share {peak} does not match {peak_name} in the run's ceilings")
            elif peak["percent"] > 100 and (not peak.get("above_because") or r["reliable"]):
                errors.append(f"{where}: {peak['percent']:.0f} % of the FMA peak, not flagged with a reason")
    # A finding that quotes a row's best rate quotes that row's share of its ceiling too.
    # A share past its ceiling is a bound the row cannot pass: never quoted as ok.
    for f in record["findings"]:
        if f["value"] is not None and f["unit"] in ("GB/s", "GFLOP/s") and not re.search(r"\d % of \S", f["note"]):
            errors.append(f"finding {f['experiment']}.{f['name']} = {f['value']} {f['unit']} names no ceiling: {f['note']}")
        quoted = re.search(r"([0-9.]+) % of \S", f["note"]) if f["unit"] in ("GB/s", "GFLOP/s") else None
        if quoted and float(quoted.group(1)) > 100 and f["reliable"]:
            errors.append(f"finding {f['experiment']}.{f['name']} quotes {quoted.group(1)} % of its ceiling unflagged")
    return errors


def cpu_set(text):
    cpus = set()
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def check_threads(record):
    """Each rank names its cores; by default a threaded host space gives each rank its share of
    the cores it shares with its node's ranks (a Serial one, one thread), and the BLAS as many."""
    errors = []
    chosen = [v for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "KOKKOS_NUM_THREADS") if os.environ.get(v)]
    threaded = any(b in ("OpenMP", "Threads") for b in record["kokkos"]["backends"])
    ranks = record["mpi"]["ranks"]
    for r in ranks:
        if not r.get("cores") or not r.get("threads"):
            errors.append(f"rank {r['rank']} names no cores or threads: {r}")
            continue
        mine = cpu_set(r["cores"])
        sharing = sum(1 for o in ranks if o["host"] == r["host"] and mine & cpu_set(o.get("cores", "")))
        expected = max(1, len(mine) // sharing) if threaded else 1
        if not chosen and r["threads"] != expected:
            errors.append(f"rank {r['rank']}: {r['threads']} threads on cores {r['cores']} shared by "
                          f"{sharing} rank(s), expected {expected}")
    threads = record.get("threads", {})
    if "OPENBLAS_NUM_THREADS" not in chosen and threads.get("blas") != threads.get("kokkos_host"):
        errors.append(f"the BLAS and Kokkos's host space should get the same threads, got {threads}")
    if ranks and threads.get("kokkos_host") != ranks[0].get("threads"):
        errors.append(f"rank 0's threads {ranks[0].get('threads')} differ from the record's {threads}")
    return errors


def check_results(out_dir, ranks=None):
    """Error strings for the one run directory expected in out_dir (empty when all is well)."""
    runs = os.listdir(out_dir) if os.path.isdir(out_dir) else []
    if len(runs) != 1 or ".partial" in runs[0] or ".interrupted" in runs[0]:
        return [f"expected one finished run directory in {out_dir}, found {runs}"]
    run_dir = os.path.join(out_dir, runs[0])
    with open(os.path.join(run_dir, "results.csv"), newline="", encoding="utf-8") as f:
        header = next(csv.reader(f), [])
        f.seek(0)
        rows = list(csv.DictReader(f))
    with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
        record = json.load(f)
    errors = []
    # A repeated column name (a case's parameter and a figure of the same name) makes a reader
    # such as csv.DictReader or pandas keep one of the two silently.
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        errors.append(f"results.csv repeats the column(s) {repeated}")
    if not rows:
        errors.append("results.csv has no rows")
    if len(rows) != len(record["results"]):
        errors.append(f"{len(rows)} CSV rows but {len(record['results'])} JSON results")
    wanted = {e["name"] for e in record["resolved_input"]["experiments"]}
    seen = {r["experiment"] for r in rows}
    if wanted - seen:
        errors.append(f"no rows for {sorted(wanted - seen)}")
    errors += [f"row not verified: {r['experiment']} {r['case']}: {r['check']}"
               for r in rows if r["verified"] != "true"]
    errors += [f"bad median time in {r['experiment']} {r['case']}" for r in rows if not float(r["median_s"]) >= 0]
    # Spread: every repetition's time is kept, and the summary is of exactly those.
    for r in record["results"]:
        samples, s = r.get("samples_seconds", []), r["seconds"]
        where = f"{r['experiment']} {r['case']}"
        if len(samples) != r["repetitions"]:
            errors.append(f"{where}: {len(samples)} samples for {r['repetitions']} repetitions")
        elif not (min(samples) == s["min"] and max(samples) == s["max"]):
            errors.append(f"{where}: min/max are not those of samples_seconds")
        low, high = s.get("median_ci95", [None, None])
        if low is None or not (s["min"] <= low <= s["median"] <= high <= s["max"]) or not s.get("cv", -1) >= 0:
            errors.append(f"{where}: no sane median_ci95 / cv in {s}")
        elif s["min"] < s["max"] and not low < high:
            errors.append(f"{where}: a zero-width median interval {low} though the samples differ")
    # Findings are typed: one name once, a number with a unit or null with the reason, and a
    # reliability flag that gives its reason; no "GPUs" where none are real.
    names = [(f["experiment"], f["name"]) for f in record["findings"]]
    errors += [f"finding {e}.{n} appears twice" for e, n in sorted(set(names)) if names.count((e, n)) > 1]
    for f in record["findings"]:
        where = f"finding {f['experiment']}.{f['name']}"
        if f["value"] is None and not f["note"]:
            errors.append(f"{where} has no value and no reason")
        if f["value"] is not None and not f["unit"]:
            errors.append(f"{where} = {f['value']} has no unit")
        if not f["reliable"] and not f["unreliable_because"]:
            errors.append(f"{where} is unreliable without a reason")
        if isinstance(f["value"], (int, float)) and f["unit"] == "%" and f["name"].startswith("efficiency") \
                and f["value"] > 100 and f["reliable"]:
            errors.append(f"{where} = {f['value']} % is superlinear yet not flagged")
        if not record["devices"]["num_gpus"] and " GPUs" in f["note"]:
            errors.append(f"{where} speaks of GPUs in a run without one: {f['note']}")
        # A figure is only as good as the rows it is drawn from: it names them, and is flagged
        # whenever one of them is.
        if f["value"] is not None:
            drawn = f.get("drawn_from") or []
            if not drawn or not all(1 <= i <= len(record["results"]) for i in drawn):
                errors.append(f"{where} = {f['value']} names no row (or a row not in results): {drawn}")
            elif f["reliable"] and any(not record["results"][i - 1]["reliable"] for i in drawn):
                errors.append(f"{where} is drawn from an unreliable row yet not flagged")
        # The model never predicts above its own ideal (100 % efficiency).
        model = re.search(r"; model ([0-9.e+]+) %", f["note"])
        if model and float(model.group(1)) > 100.05:
            errors.append(f"{where}: the model predicts {model.group(1)} %, above its ideal: {f['note']}")
    errors += check_ceilings(record)
    errors += check_scaling_model(record, rows)
    for column in ("cv", "median_ci95_low_s", "median_ci95_high_s", "pct_of_ceiling", "ceiling", "pct_of_peak", "peak"):
        if rows and column not in rows[0]:
            errors.append(f"results.csv lacks {column}")
    if record["mpi"]["size"] != len(record["mpi"]["ranks"]):
        errors.append("rank map does not cover every rank")
    if ranks is not None and record["mpi"]["size"] != ranks:
        errors.append(f"MPI size {record['mpi']['size']}, expected {ranks} (one MPI job, not {ranks} singletons)")
    # Which MPI ran the job, as its library says: one printable line (Open MPI's length counts a NUL).
    library = record["mpi"].get("library", "")
    if not re.fullmatch(r"(Open MPI|MPICH|Intel|HPE|Cray|MVAPICH|Spectrum)[ -~]+", library):
        errors.append(f"run.json mpi.library {library!r} is not one printable line naming the MPI")
    for key in ("minigpu", "kokkos", "host", "build", "blas", "threads", "started", "finished", "resolved_input"):
        if key not in record:
            errors.append(f"run.json lacks {key}")
    # Figures depend on these: they must be recorded.
    if not record.get("blas", {}).get("library"):
        errors.append("run.json names no BLAS library")
    if not record.get("host", {}).get("vector_isa") or "flags" not in record.get("build", {}):
        errors.append("run.json lacks the vector ISA or the compiler flags")
    errors += check_threads(record)
    if not errors:
        print(f"{run_dir}: {len(rows)} rows verified from {len(seen)} experiments on {record['mpi']['size']} rank(s)")
    return errors


def check_scaling_model(record, rows):
    """Every matmul_scaling row measured in this run carries its model, and the error it
    reports is the one its own model_s and median give; the calibration names its sources."""
    errors = []
    scaling = [r for r in record["results"] if r["experiment"] == "matmul_scaling" and "[resumed]" not in r["check"]]
    if not scaling:
        return errors
    model = record.get("scaling_model") or {}
    links = [model.get("intra_node")] + ([model["inter_node"]] if model.get("inter_node") else [])
    if not links[0] or any(not link.get("source") or link.get("alpha_s", -1) < 0 for link in links):
        errors.append(f"scaling_model lacks a link with its source: {model}")
    if not model.get("gemm") or any(not g.get("source") or g["flops_per_s"] <= 0 for g in model["gemm"].values()):
        errors.append(f"scaling_model lacks a GEMM rate with its source: {model.get('gemm')}")
    for r in scaling:
        where, v = f"matmul_scaling {r['case']}", r.get("values", {})
        if not (v.get("model_s") or 0) > 0 or v.get("model_error_pct") is None:
            errors.append(f"{where}: no model_s / model_error_pct in {v}")
            continue
        want = 100 * (v["model_s"] - r["seconds"]["median"]) / r["seconds"]["median"]
        if abs(want - v["model_error_pct"]) > 1e-6 * max(1.0, abs(want)):
            errors.append(f"{where}: model_error_pct {v['model_error_pct']} but model_s and median give {want}")
        if v.get("comm_exposed_s") is None:
            errors.append(f"{where}: no comm_exposed_s")
        if r["params"].get("decomposition") == "summa" and not (v.get("panel_width_used") or 0) >= 1:
            errors.append(f"{where}: SUMMA row without its panel_width_used")
    for column in ("model_s", "model_error_pct", "comm_s", "comm_exposed_s"):
        if column not in rows[0]:
            errors.append(f"results.csv lacks {column}")
    for f in record["findings"]:
        if f["experiment"] == "matmul_scaling" and f["name"].startswith("efficiency") and "; model " not in f["note"]:
            errors.append(f"finding {f['name']} does not quote the model: {f['note']}")
    return errors


def run_and_check(command, minigpu, input_path):
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = os.path.join(tmp, "results")
        proc = subprocess.run(command + [minigpu, "run", input_path, "--output-dir", out_dir],
                              capture_output=True, text=True, timeout=900)
        print(proc.stdout[-4000:])
        print(proc.stderr[-4000:], file=sys.stderr)
        if proc.returncode != 0:
            return [f"exit code {proc.returncode}, expected 0"]
        return check_results(out_dir)


def main():
    args = sys.argv[1:]
    if args and args[0] == "--check-dir":
        ranks = int(args[3]) if len(args) > 3 and args[2] == "--ranks" else None
        errors = check_results(args[1], ranks)
    else:
        *command, minigpu, input_path = args
        errors = run_and_check(command, minigpu, input_path)
    print("\n".join(errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
