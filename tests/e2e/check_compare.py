#!/usr/bin/env python3
"""`minigpu compare` end to end. Usage: check_compare.py CHECK MINIGPU SOURCE_DIR [MPIEXEC]
CHECK is one of:
  runs        tests/inputs/compare_tiny.yaml run three times (A, B, and C with the lazy cases
              slowed by MINIGPU_INJECT_DELAY=lazy:0.1): C's lazy rows must be `slower` with
              the ratio and interval recomputed here from both run.json files, --fail-below 90
              exit 1 naming exactly those rows (10x slower beyond noise: the delay makes them
              about 1000x, still over 100x under ASan, where 2 ms made them only 3.4x);
              A against B and A against itself exit 0; --json and --csv carry the
              same pairs; a run reduced by scripts/make_reference.py is a reference that
              compares like its run, and with rows removed from it those cases are listed as
              only in the candidate; each n/a finding is listed with its run's note, also
              through a reference, which keeps the run's setup (Kokkos, threads) and is
              warned about when edited to another; under MPIEXEC -n 2 only rank 0 prints
  references  every inputs/references/*.json validates against docs/reference.schema.json
              (broken copies do not); the H100 file's cases are ones the GPU inputs plan and
              its findings names ones those experiments report
  bad         bad arguments and broken files: exit 2 and one error line naming the file, the
              entry and the key"""
import copy
import csv
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from system_python import require  # noqa: E402  (Debian's python3-* packages, one rule for all)

# Open MPI's --oversubscribe as its environment variable: MPICH's mpiexec refuses the flag.
os.environ.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")


def fail(message, out=""):
    print("FAIL:", message)
    if out:
        print(out)
    sys.exit(1)


def run(args, env=None, timeout=300):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


def one_run(minigpu, src, out_dir, env=None):
    before = set(glob.glob(os.path.join(out_dir, "*")))
    proc = run([minigpu, "run", os.path.join(src, "tests/inputs/compare_tiny.yaml"), "--output-dir", out_dir], env)
    if proc.returncode != 0:
        fail(f"minigpu run exit {proc.returncode}", proc.stdout + proc.stderr)
    (made,) = set(glob.glob(os.path.join(out_dir, "*"))) - before
    return made


def medians(run_dir):
    with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
        record = json.load(f)
    return {(r["experiment"], r["case"], r["device"], r["dtype"]): r["seconds"] for r in record["results"]}


def compare(minigpu, *args):
    return run([minigpu, "compare", *args])


def check_runs(minigpu, src, mpiexec):
    with tempfile.TemporaryDirectory() as tmp:
        a = one_run(minigpu, src, tmp)
        b = one_run(minigpu, src, tmp)
        c = one_run(minigpu, src, tmp, {"MINIGPU_INJECT_DELAY": "lazy:0.1"})
        ma, mc = medians(a), medians(c)
        slowed = sorted(k for k in ma if k[0] == "lazy")
        if len(slowed) != 4 or len(ma) != 8:
            fail(f"compare_tiny should plan 4 lazy and 4 matmul cases, found {sorted(ma)}")

        # A against C: the slowed rows, their ratios and intervals recomputed from run.json.
        proc = compare(minigpu, a, c, "--json", "-")
        if proc.returncode != 0:
            fail(f"compare A C --json -: exit {proc.returncode}", proc.stdout + proc.stderr)
        doc = json.loads(proc.stdout)
        pairs = {(p["experiment"], p["case"], p["device"], p["dtype"]): p for p in doc["cases"]}
        if set(pairs) != set(ma):
            fail(f"compare matched {sorted(pairs)}, the runs have {sorted(ma)}")
        for key, p in pairs.items():
            sa, sc = ma[key], mc[key]
            ratio = sc["median"] / sa["median"]
            low, high = sc["median_ci95"][0] / sa["median_ci95"][1], sc["median_ci95"][1] / sa["median_ci95"][0]
            for got, want, what in ((p["ratio"], ratio, "ratio"), (p["ratio_ci95"][0], low, "interval low"),
                                    (p["ratio_ci95"][1], high, "interval high")):
                if abs(got - want) > 1e-9 * abs(want):
                    fail(f"{key}: {what} {got}, recomputed {want}")
            want = "slower" if low > 1 else "faster" if high < 1 else "same within noise"
            if p["verdict"] != want:
                fail(f"{key}: verdict {p['verdict']}, the interval [{low}, {high}] says {want}")
            if key in slowed and (p["verdict"] != "slower" or low < 10):
                fail(f"{key}: slowed by 100 ms a repetition, yet {p['verdict']} with interval [{low}, {high}]")

        proc = compare(minigpu, a, c, "--fail-below", "90")
        named = [line.strip() for line in proc.stdout.splitlines() if line.startswith("  lazy / ")]
        if proc.returncode != 1 or sorted(named) != sorted(" / ".join(k) for k in slowed):
            fail(f"compare A C --fail-below 90: exit {proc.returncode}, named {named}", proc.stdout + proc.stderr)
        # Verdicts see each run's own noise only: the method says so where they are read.
        if "not the spread between runs" not in proc.stdout:
            fail("the method does not say that its intervals leave out the spread between runs", proc.stdout)
        counted = re.search(r"case\(s\) matched: (\d+) slower", proc.stdout)
        if not counted or int(counted.group(1)) < 4:
            fail("the summary does not count the 4 slowed cases", proc.stdout)
        for args, what in (((a, b, "--fail-below", "90"), "two clean runs"),
                           ((a, a, "--fail-below", "0"), "A with A")):
            proc = compare(minigpu, *args)
            if proc.returncode != 0:
                fail(f"{what}: exit {proc.returncode}, expected 0", proc.stdout + proc.stderr)
        proc = compare(minigpu, a, a, "--json", "-")
        if any(p["ratio"] != 1 or p["verdict"] != "same within noise" for p in json.loads(proc.stdout)["cases"]):
            fail("A against itself: a ratio other than 1", proc.stdout)

        # --csv: the same pairs as --json.
        csv_path = os.path.join(tmp, "cmp.csv")
        proc = compare(minigpu, a, c, "--csv", csv_path)
        rows = list(csv.DictReader(open(csv_path, encoding="utf-8")))
        if proc.returncode != 0 or len(rows) != 8:
            fail(f"--csv: exit {proc.returncode}, {len(rows)} rows", proc.stdout + proc.stderr)
        for row in rows:
            p = pairs[(row["experiment"], row["case"], row["device"], row["dtype"])]
            if abs(float(row["ratio"]) - p["ratio"]) > 1e-6 * p["ratio"] or row["verdict"] != p["verdict"]:
                fail(f"--csv row {row} disagrees with --json {p}")

        # A reference made from A compares like A; one missing rows lists them.
        ref = os.path.join(tmp, "ref.json")
        proc = run([sys.executable, os.path.join(src, "scripts/make_reference.py"), a, ref])
        if proc.returncode != 0:
            fail("make_reference.py failed", proc.stdout + proc.stderr)
        via_ref = json.loads(compare(minigpu, c, "--reference", ref, "--json", "-").stdout)
        via_run = json.loads(compare(minigpu, a, c, "--json", "-").stdout)
        if [p["ratio"] for p in via_ref["cases"]] != [p["ratio"] for p in via_run["cases"]]:
            fail("a reference made from A does not compare like A")
        reduced = json.load(open(ref, encoding="utf-8"))
        gone = reduced["results"][:2]
        reduced["results"] = reduced["results"][2:]
        json.dump(reduced, open(ref, "w", encoding="utf-8"))
        doc = json.loads(compare(minigpu, c, "--reference", ref, "--json", "-").stdout)
        if [x["case"] for x in doc["only_in_candidate"]] != [g["case"] for g in gone] or doc["only_in_baseline"]:
            fail(f"rows missing from the reference: {doc['only_in_candidate']}, expected {[g['case'] for g in gone]}")
        text = compare(minigpu, c, "--reference", ref).stdout
        if "only in candidate (2):" not in text:
            fail("the table does not list the one-sided cases", text)

        # Each n/a finding with the run's note saying why, read from run.json here; through a
        # reference made from A too (make_reference.py keeps the notes).
        with open(os.path.join(a, "run.json"), encoding="utf-8") as f:
            missing = [x for x in json.load(f)["findings"] if x["value"] is None]
        if not missing:
            fail("compare_tiny on a CPU should leave matmul's GPU crossover findings n/a")
        ref = os.path.join(tmp, "ref_full.json")
        run([sys.executable, os.path.join(src, "scripts/make_reference.py"), a, ref])
        # The setup travels too; a reference from another build or thread count is warned about.
        made, record = json.load(open(ref, encoding="utf-8")), json.load(open(os.path.join(a, "run.json")))
        if (made["kokkos"]["version"], made["threads"]["kokkos_host"]) != (record["kokkos"]["version"],
                                                                           record["threads"]["kokkos_host"]):
            fail(f"make_reference.py: setup {made.get('kokkos')} {made.get('threads')} is not the run's")
        other = dict(made, kokkos={"version": "0.0.1", "default_execution_space": "Elsewhere"},
                     threads={"kokkos_host": record["threads"]["kokkos_host"] + 1})
        json.dump(other, open(os.path.join(tmp, "ref_other.json"), "w", encoding="utf-8"))
        text = compare(minigpu, a, "--reference", os.path.join(tmp, "ref_other.json")).stdout
        want = (f"warning:   different setups (Kokkos 0.0.1 Elsewhere vs {record['kokkos']['version']} "
                f"{record['kokkos']['default_execution_space']}; threads a rank "
                f"{record['threads']['kokkos_host'] + 1} vs {record['threads']['kokkos_host']})")
        if want not in text or "different setups" in compare(minigpu, a, "--reference", ref).stdout:
            fail(f"no warning {want!r} against another setup, or one against the run's own", text)
        for args in ((a, c), (c, "--reference", ref)):
            text = compare(minigpu, *args).stdout
            for x in missing:
                line = f"  n/a {x['experiment']}.{x['name']} (both): {x['note']}\n"
                if not x["note"] or line not in text:
                    fail(f"compare {' '.join(args)}: no line {line!r}", text)

        if mpiexec:
            proc = run([mpiexec, "-n", "2", minigpu, "compare", a, c])
            if proc.returncode != 0 or proc.stdout.count("baseline:") != 1:
                fail(f"under {mpiexec} -n 2: exit {proc.returncode}, {proc.stdout.count('baseline:')} tables",
                     proc.stdout + proc.stderr)


def check_references(minigpu, src):
    jsonschema = require("jsonschema", "python3-jsonschema", prefix="FAIL: ")
    schema = json.load(open(os.path.join(src, "docs/reference.schema.json"), encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files = sorted(glob.glob(os.path.join(src, "inputs/references/*.json")))
    if len(files) < 2:
        fail(f"expected the H100 and a CPU reference, found {files}")
    for path in files:
        ref = json.load(open(path, encoding="utf-8"))
        errors = list(validator.iter_errors(ref))
        if errors:
            fail(f"{path}: {errors[0].message} at {list(errors[0].path)}")
        for what, change in (("no hardware", lambda r: r["reference"].pop("hardware")),
                             ("a median of 0", lambda r: r["results"][0]["seconds"].update(median=0)),
                             ("an interval of one number",
                              lambda r: r["results"][0]["seconds"].update(median_ci95=[1])),
                             ("a date that is not one", lambda r: r["reference"].update(measured="recently"))):
            broken = copy.deepcopy(ref)
            change(broken)
            if validator.is_valid(broken):
                fail(f"{path}: the schema accepts {what}")
        # minigpu reads it (compared with itself: every ratio 1).
        proc = compare(minigpu, path, path, "--json", "-")
        if proc.returncode != 0 or any(p["ratio"] != 1 for p in json.loads(proc.stdout)["cases"]):
            fail(f"{path}: compare with itself: exit {proc.returncode}", proc.stdout + proc.stderr)

    # The H100 file names cases the GPU inputs plan (emulated GPUs list all but pinned copies).
    h100 = json.load(open(os.path.join(src, "inputs/references/h100_gpu_check_2026-11-23.json"), encoding="utf-8"))
    env = {"MINIGPU_EMULATE_GPUS": "1"}
    planned = set()
    for name in ("transfer_gpu", "matmul_gpu"):
        proc = run([minigpu, "run", os.path.join(src, f"inputs/{name}.yaml"), "--set", "run.require_gpu=false",
                    "--dry-run"], env)
        for line in proc.stdout.splitlines():
            m = re.match(r"^\s+(\S.*?)\s{2,}gpu:0 \(emulated\)\s+(float32|float64)\b", line)
            if m:
                planned.add((m.group(1), m.group(2)))
    for r in h100["results"]:
        label = r["case"].replace(" pinned ", " pageable ")  # no pinned host memory without a real GPU
        if r["device"] != "gpu:0" or (label, r["dtype"]) not in planned:
            fail(f"H100 reference case {r['case']} ({r['dtype']}) is not one the GPU inputs plan",
                 "\n".join(map(str, sorted(planned))))
    with tempfile.TemporaryDirectory() as tmp:
        found = set()
        for name, tiny in (("lazy_gpu", "experiments.lazy.elements=1000"),
                           ("logging_gpu", "experiments.logging.steps=2")):
            proc = run([minigpu, "run", os.path.join(src, f"inputs/{name}.yaml"), "--set", "run.require_gpu=false",
                        "--set", tiny, "--repetitions", "1", "--warmups", "0", "--output-dir", tmp], env)
            if proc.returncode != 0:
                fail(f"{name} at a tiny size: exit {proc.returncode}", proc.stdout + proc.stderr)
        for path in glob.glob(os.path.join(tmp, "*", "run.json")):
            found |= {(f["experiment"], f["name"]) for f in json.load(open(path, encoding="utf-8"))["findings"]}
        for f in h100["findings"]:
            if (f["experiment"], f["name"]) not in found:
                fail(f"H100 reference finding {f['experiment']}.{f['name']} is not one the experiments report: {found}")


def expect_usage_error(minigpu, args, text):
    proc = compare(minigpu, *args)
    errors = [line for line in proc.stderr.splitlines() if "error" in line.lower()]
    if proc.returncode != 2 or len(errors) != 1 or text not in errors[0] or proc.stdout.strip():
        fail(f"compare {' '.join(args)}: exit {proc.returncode}, expected 2 and one error line with '{text}'",
             proc.stdout + proc.stderr)


def check_bad(minigpu, src):
    h100 = os.path.join(src, "inputs/references/h100_gpu_check_2026-11-23.json")
    with tempfile.TemporaryDirectory() as tmp:
        def file_with(name, text):
            path = os.path.join(tmp, name)
            open(path, "w", encoding="utf-8").write(text)
            return path
        broken = json.load(open(h100, encoding="utf-8"))
        del broken["results"][3]["dtype"]
        no_dtype = file_with("no_dtype.json", json.dumps(broken))
        cpu_only = file_with("cpu.json", json.dumps({"results": [{"experiment": "m", "case": "c", "device": "cpu",
                                                                  "dtype": "float32", "seconds": {"median": 1}}]}))
        for args, text in (
                ((h100,), "give two runs (compare A B) or one run and a reference"),
                ((h100, h100, "--reference", h100), "give two runs (compare A B) or one run and a reference"),
                ((h100, os.path.join(tmp, "none")), "none: cannot read it"),
                ((h100, no_dtype), "no_dtype.json: results[3]: key 'dtype' is missing"),
                ((h100, file_with("trunc.json", '{"results": [')), "trunc.json: not JSON"),
                ((h100, file_with("list.json", "[]")), "list.json: not a run record or reference"),
                ((h100, cpu_only), "have no case in common"),
                # A run stopped before its first case is said to be one, not a mismatch.
                ((h100, file_with("run.json", json.dumps({"status": "interrupted", "cases_planned": 4,
                                                          "results": []}))),
                 "run.json has no case to compare (status 'interrupted', 0 of 4 cases finished)"),
                ((h100, h100, "--fail-below", "100"), "--fail-below"),
                ((h100, h100, "--fail-below", "abc"), "--fail-below"),
                ((h100, h100, "--json", "-", "--csv", "-"), "would both write to standard output"),
                ((h100, h100, "--csv", os.path.join(tmp, "no", "dir", "x.csv")), "cannot write the comparison there")):
            expect_usage_error(minigpu, args, text)
        # The fault hook that slows a case is checked before anything runs.
        proc = run([minigpu, "devices"], {"MINIGPU_INJECT_DELAY": "lazy"})
        if proc.returncode != 2 or "MINIGPU_INJECT_DELAY='lazy' must be EXPERIMENT:SECONDS" not in proc.stderr:
            fail(f"a malformed MINIGPU_INJECT_DELAY: exit {proc.returncode}", proc.stdout + proc.stderr)


def main():
    check, minigpu, src, *rest = sys.argv[1:]
    {"runs": lambda: check_runs(minigpu, src, rest[0] if rest else None),
     "references": lambda: check_references(minigpu, src),
     "bad": lambda: check_bad(minigpu, src)}[check]()
    print(f"check_compare.py {check}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
