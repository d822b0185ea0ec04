#!/usr/bin/env python3
"""scripts/torch_reference.py at tiny sizes on the CPU: a row for every experiment of the input
with miniGPU's columns, positive ordered times, every measured row verified against numpy, rates
that are the work over the median (matmul's flops recomputed here as 2n^3), numpy's matmul rows
beside PyTorch's, each row naming its peer and the BLAS under it, CUDA-only rows
skipped with a reason and no times, the thread count asked for; an unknown experiment exits 2.
Exit 77 (skipped) where python3-torch is not installed.
Usage: check_torch_reference.py PYTHON TORCH_REFERENCE_PY INPUT.yaml"""
import csv
import os
import subprocess
import sys
import tempfile

MATCH_COLUMNS = {"transfer": ["direction", "host_memory", "bytes", "chunks"], "lazy": ["variant", "elements"],
                 "matmul": ["n", "variant"], "logging": ["n", "steps", "mode", "kernel"],
                 "linear": ["rule", "data", "loss", "batch_size", "samples", "in_features"],
                 "multi_gpu_concurrency": ["k", "n", "multiplies_per_gpu"]}


def main():
    python, script, tiny = sys.argv[1:4]
    if subprocess.run([python, "-c", "import torch"], capture_output=True).returncode != 0:
        print("python3-torch is not installed: skipped")
        return 77
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "torch.csv")
        proc = subprocess.run([python, script, tiny, out, "--device", "cpu", "--threads", "1"],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            print(f"torch_reference.py exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
            return 1
        with open(out, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        bad = os.path.join(tmp, "bad.yaml")
        with open(bad, "w", encoding="utf-8") as f:
            f.write("experiments:\n  - name: matmull\n")
        proc = subprocess.run([python, script, bad, os.path.join(tmp, "bad.csv")], capture_output=True, text=True)
        if proc.returncode != 2 or "experiments[0].name" not in proc.stderr:
            errors.append(f"an unknown experiment: exit {proc.returncode}, {proc.stderr.strip()!r}")
    names = {r["experiment"] for r in rows}
    for name in ("devices", "transfer", "lazy", "matmul", "logging", "linear", "multi_gpu_concurrency",
                 "matmul_scaling"):
        if name not in names:
            errors.append(f"no row for experiment {name}")
    for name, columns in MATCH_COLUMNS.items():
        measured = [r for r in rows if r["experiment"] == name and not r["skipped"]]
        if name != "multi_gpu_concurrency" and not measured:
            errors.append(f"{name}: nothing measured on the CPU")
        for r in measured:
            missing = [c for c in columns if not r.get(c)]
            if missing:
                errors.append(f"{name} {r['case']}: empty key columns {missing}")
    numpy_rows = [r for r in rows if r["experiment"] == "matmul" and r.get("variant") == "numpy"]
    if not numpy_rows or any(r["device"] != "cpu" or not r["peer"].startswith("numpy ") for r in numpy_rows):
        errors.append(f"matmul on the CPU needs numpy rows named as numpy's: {[r['case'] for r in numpy_rows]}")
    for r in rows:
        what = f"{r['experiment']} {r['case']} {r['dtype']}"
        if not r.get("peer") or not r.get("blas"):
            errors.append(f"{what}: the peer's configuration is missing (peer {r.get('peer')!r}, blas {r.get('blas')!r})")
        if r["threads"] != "1":
            errors.append(f"{what}: threads {r['threads']}, asked for 1")
        if r["skipped"]:
            if r["median_s"] or r["verified"]:
                errors.append(f"{what}: skipped ({r['skipped']}) yet carries a measurement")
            continue
        if not r["median_s"]:
            errors.append(f"{what}: neither measured nor skipped with a reason")
            continue
        t = [float(r[k]) for k in ("min_s", "median_s", "max_s")]
        if not (0 < t[0] <= t[1] <= t[2]) or int(r["reps"]) < 1:
            errors.append(f"{what}: times not positive and ordered: {t}, reps {r['reps']}")
        if r["verified"] != "true" or "max rel err" not in r["check"] and "bytes equal" not in r["check"]:
            errors.append(f"{what}: not verified: {r['check']}")
        if r["experiment"] == "matmul":
            n = int(r["n"])
            if abs(float(r["gflops"]) - 2 * n**3 / t[1] / 1e9) > 1e-6 * float(r["gflops"]):
                errors.append(f"{what}: {r['gflops']} GFLOP/s is not 2n^3 / median")
        gbps = float(r["gbps"] or 0)
        if r["experiment"] == "transfer" and abs(gbps - int(r["bytes"]) / t[1] / 1e9) > 1e-6 * gbps:
            errors.append(f"{what}: {r['gbps']} GB/s is not bytes / median")
    cuda_only = [r for r in rows if r.get("host_memory") == "pinned" or r["experiment"] == "multi_gpu_concurrency"
                 or (r["experiment"] == "matmul" and r["device"] == "gpu")]
    if not cuda_only or any(not r["skipped"] for r in cuda_only):
        errors.append(f"CUDA-only rows (pinned copies, k GPUs, matmul on gpu) must be skipped: "
                      f"{[(r['case'], r['skipped']) for r in cuda_only]}")
    for e in errors:
        print("FAIL", e)
    print(f"{len(rows)} rows checked" if not errors else f"{len(errors)} failure(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
