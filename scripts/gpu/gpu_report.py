#!/usr/bin/env python3
"""The GPU check's report: miniGPU's GPU figures beside the same quantities measured without
miniGPU (tests/gpu/cuda_reference) and by PyTorch on the same GPU (scripts/torch_reference.py),
as Markdown tables. Reads OUT/gpus.csv, OUT/reference.json, OUT/fma_reference.json with
OUT/clocks.csv (the FMA peak and the SM clock), OUT/runs/*/run.json (and the
results.csv beside each) and OUT/torch/*.csv as scripts/gpu/gpu_check.sh leaves them.
OUT/steps.tsv (gpu_check.sh's steps: passed, failed, timed out or skipped, and why) heads the report.
    gpu_report.py OUT"""
import csv
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import torch_compare  # noqa: E402  (in scripts/, shared with dev/bench.sh)


def load_runs(out, folder="runs"):
    runs = {}
    for path in sorted(glob.glob(os.path.join(out, folder, "*", "run.json"))):
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        runs[record["resolved_input"]["run"]["name"]] = record
    return runs


def rows(record, experiment, **params):
    for r in record.get("results", []):
        if r.get("experiment") != experiment:
            continue
        p = r.get("params", {})
        if all(str(p.get(k, r.get(k))) == str(v) for k, v in params.items()):
            yield r


def finding(record, experiment, name):
    for f in record.get("findings", []):
        if f["experiment"] == experiment and f["name"] == name:
            return f
    return None


def read_csvs(pattern):
    rows = []
    for path in sorted(glob.glob(pattern)):
        rows += torch_compare.read(path)
    return rows


def torch_rate(torch_rows, experiment, rate, dtype="-", **params):
    """PyTorch's rate for the row on the GPU doing this work, None where it measured none."""
    for t in torch_rows:
        if (t["experiment"] == experiment and t["device"].startswith("gpu") and not t["skipped"]
                and t["verified"] == "true" and t["dtype"] in ("-", dtype)
                and all(t.get(k) == str(v) for k, v in params.items())):
            return float(t[rate])
    return None


# Each precision a GPU is sold on: the dtype its rows carry, miniGPU's variants for it, the key
# of cuda_reference's cuBLAS figure and PyTorch's variant.
PRECISIONS = [("float64", "float64", ("vendor", "tiled"), "dgemm_tflops", "torch"),
              ("float32", "float32", ("vendor", "tiled"), "sgemm_tflops", "torch"),
              ("TF32", "float32", ("vendor_tf32",), "tf32_tflops", "torch_tf32"),
              ("bfloat16", "bfloat16", ("vendor", "tiled"), "bf16_tflops", "torch"),
              ("float16", "float16", ("vendor", "tiled"), "fp16_tflops", "torch")]


def low_precision_lines(record, ref, torch_rows, sheet=None):
    """inputs/matmul_low_precision_gpu.yaml: each precision's rate beside cuBLAS called directly
    and PyTorch, as a share of the GPU's datasheet peak for that precision (flagged above it:
    a clock or a timing that cannot be right), with the row's check (its error against float64
    and the precision's bound)."""
    if not record:
        return []
    peaks = (sheet or {}).get("gemm_tflops", {})
    lines = ["", "| precision | n | variant | miniGPU TFLOP/s | cuBLAS directly | PyTorch | miniGPU / cuBLAS "
             f"| datasheet peak ({sheet['name'] if sheet else 'unknown GPU'}) | share of peak | verified | check |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    by_n = {e["n"]: e for e in ref.get("gemm", [])}
    for name, dtype, variants, key, torch_variant in PRECISIONS:
        peak = peaks.get(name, {}).get("value")
        for variant in variants:
            for r in rows(record, "matmul", variant=variant, dtype=dtype):
                n = int(r["params"]["n"])
                mine = r["gflops"] / 1000
                reference = by_n.get(n, {}).get(key)
                pytorch = torch_rate(torch_rows, "matmul", "gflops", dtype, n=n, variant=torch_variant)
                ratio = mine / reference if reference else None
                ratio = same_call_ratio(ratio) if variant.startswith("vendor") else fmt(ratio, 2)
                share = "—" if not peak else f"{100 * mine / peak:.1f} %" + (
                    " ! above the datasheet peak: a clock or timing that cannot be right" if mine > peak else "")
                lines.append(f"| {name} | {n} | {variant} | {fmt(mine)} | {fmt(reference)} "
                             f"| {fmt(pytorch / 1000 if pytorch else None)} | {ratio} | {fmt(peak)} | {share} "
                             f"| {'yes' if r.get('verified') else 'NO'} | {r.get('check', '').replace('|', chr(92) + '|')} |")
    if peaks:
        lines += [""] + [f"- {name} peak: {p['source']}" for name, p in peaks.items()]
    return lines


def fmt(x, digits=3):
    return "—" if x is None else f"{x:.{digits}g}"


# miniGPU's vendor rows and cuda_reference make the same cuBLAS call on the same data, so their
# ratio is 1 but for the GPU's state and miniGPU's overhead: a large product on an H200 runs at
# its power cap, and its clock then depends on what ran before (2026-11-29: 637-791 TFLOP/s for
# one bfloat16 product at n = 10000 in five rounds). A ratio this far from 1 is flagged with what
# it can mean: above 1 the GPU's state or the timing, below it miniGPU's overhead too.
SAME_CALL_SPREAD = 0.10


def same_call_ratio(ratio, digits=2):
    if ratio is None or abs(ratio - 1) <= SAME_CALL_SPREAD:
        return fmt(ratio, digits)
    if ratio > 1:
        return (f"{fmt(ratio, digits)} ! faster than the same cuBLAS call made directly: the GPU's state "
                "differed (its clock under the power cap, what ran before) or the two timings, not miniGPU's doing")
    return (f"{fmt(ratio, digits)} ! slower than the same cuBLAS call made directly: miniGPU's overhead, "
            "or the GPU's state (its clock under the power cap, what ran before)")


DATASHEETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "inputs", "hardware",
                          "gpu_datasheets.json")
# The measured GPU ceilings (src/ceilings) and the datasheet figure each is a share of.
CEILING_LINKS = [("gpu_d2d", "hbm_gbps", "bytes counted once: the copy reads and writes each, 2x this through HBM"),
                 ("gpu_triad", "hbm_gbps", "24 bytes per element: 2 reads and 1 write, all counted"),
                 ("gpu_h2d_pinned", "host_link_gbps", "pinned host memory to the GPU"),
                 ("gpu_d2h_pinned", "host_link_gbps", "the GPU to pinned host memory")]


def datasheet_of(gpu_name, path=DATASHEETS):
    with open(path, encoding="utf-8") as f:
        sheets = json.load(f)["gpus"]
    return next((d for d in sheets if all(m in gpu_name for m in d["match"])), None)


def ceiling_lines(runs, gpu_name):
    """The GPU ceilings the runs measured, each as a share of the datasheet figure it is bounded by."""
    measured = {}
    for record in runs.values():
        for c in record.get("ceilings", []):
            measured.setdefault(c["name"], c)
    sheet = datasheet_of(gpu_name)
    lines = ["", f"| GPU ceiling (measured by miniGPU) | GB/s | datasheet ({sheet['name'] if sheet else 'unknown GPU'}) "
             "| share | note |", "|---|---|---|---|---|"]
    for name, key, note in CEILING_LINKS:
        c = measured.get(name)
        peak = sheet[key]["value"] if sheet else None
        share = f"{100 * c['value'] / peak:.1f} %" if c and peak else "—"
        lines.append(f"| {name} ({c['how'] if c else 'not measured'}) | {fmt(c['value'] if c else None)} "
                     f"| {fmt(peak)} | {share} | {note} |")
    fma = (sheet or {}).get("fma_tflops", {})
    lines += ["", f"| GPU FMA peak (measured by miniGPU) | TFLOP/s | datasheet, CUDA cores | share | how |",
              "|---|---|---|---|---|"]
    for dtype in ("float32", "float64"):
        c = measured.get("gpu_fma_" + dtype.replace("float", "f"))
        peak = fma.get(dtype, {}).get("value")
        mine = c["value"] / 1000 if c else None
        share = f"{100 * mine / peak:.1f} %" if mine and peak else "—"
        if mine and peak and mine > peak:
            share += " ! above the datasheet peak: a clock or timing that cannot be right"
        lines.append(f"| {dtype} | {fmt(mine)} | {fmt(peak)} | {share} | {c['how'] if c else 'not measured'} |")
    if sheet:
        lines.append("")
        lines += [f"- {key}: {sheet[key]['source']}" for key in ("hbm_gbps", "host_link_gbps")]
        lines += [f"- FMA {dtype}: {p['source']}" for dtype, p in fma.items()]
    return lines


# FMA lanes per SM and cycle on the CUDA cores (NVIDIA's tuning guides; Hopper's FP64 is half).
FMA_LANES = {"float32": 128, "float64": 64}


def clock_lines(out, runs):
    """The CUDA cores' FMA peak measured apart from miniGPU (cuda_reference fma), the SM clock
    its kernel held, and what that clock allows: tells a clock held low under load from a kernel
    that issues below the FMA pipes. nvidia-smi's samples during the step beside it."""
    path = os.path.join(out, "fma_reference.json")
    try:
        with open(path, encoding="utf-8") as f:
            ref = json.load(f)
    except (OSError, json.JSONDecodeError):
        return []
    measured = {c["name"]: c for record in runs.values() for c in record.get("ceilings", [])}
    lines = ["", "| CUDA cores' FMA peak | reference (cuda_reference fma) | SM clock in its kernel "
             "| the FMA pipes at that clock | reference / pipes | miniGPU (gpu_fma) | miniGPU / reference |",
             "|---|---|---|---|---|---|---|"]
    for dtype, r in ref.get("fma", {}).items():
        pipes = 2 * FMA_LANES[dtype] * ref["sms"] * r["sm_mhz"] / 1e6  # TFLOP/s
        c = measured.get("gpu_fma_" + dtype.replace("float", "f"))
        mine = c["value"] / 1000 if c else None
        share = r["tflops"] / pipes if pipes else None
        flag = " ! above what the pipes allow at that clock (a clock read wrong)" if share and share > 1.02 else ""
        shape = f" ({r['chains']} chains, unrolled {r['unroll']}, best of {len(r['shapes'])} shapes)" if "shapes" in r else ""
        lines.append(f"| {dtype} | {fmt(r['tflops'])} TFLOP/s{shape} | {r['sm_mhz']:.0f} MHz | {fmt(pipes)} TFLOP/s "
                     f"({ref['sms']} SMs x {FMA_LANES[dtype]} lanes) | {fmt(share, 3)}{flag} | {fmt(mine)} TFLOP/s "
                     f"| {fmt(mine / r['tflops'] if mine else None, 3)} |")
    samples = []
    if os.path.exists(os.path.join(out, "clocks.csv")):
        with open(os.path.join(out, "clocks.csv"), encoding="utf-8") as f:
            for row in csv.reader(f):
                try:
                    sample = [float(v) for v in row[1:5]]
                except ValueError:
                    continue  # a field this driver lacks ("[N/A]"), a line cut by the kill
                if len(sample) == 4:
                    samples.append(sample)
    if samples:
        sm = sorted(s[0] for s in samples)
        lines.append(f"- nvidia-smi every 50 ms during the step ({len(samples)} samples): SM clock "
                     f"{sm[0]:.0f}–{sm[-1]:.0f} MHz (median {sm[len(sm) // 2]:.0f}), its maximum "
                     f"{max(s[1] for s in samples):.0f} MHz, power up to {max(s[2] for s in samples):.0f} W, "
                     f"{max(s[3] for s in samples):.0f} °C")
    return lines


def peak_share_lines(runs):
    """Every GPU GEMM row bounded by the measured FMA peak: its share of it beside its share of
    the best GEMM (the vendor's), flagged where it is above the peak."""
    lines = ["", "| GPU GEMM row | TFLOP/s | share of the measured FMA peak | share of the best GEMM |",
             "|---|---|---|---|"]
    for name in ("matmul_gpu", "matmul_low_precision_gpu"):
        for r in runs.get(name, {}).get("results", []):
            peak, best = r.get("peak"), r.get("ceiling")
            if not peak or not str(r.get("device", "")).startswith("gpu"):
                continue
            p = r.get("params", {})
            flag = f" ! {peak['above_because']}" if peak.get("above_because") else ""
            of_best = f"{best['percent']:.1f} % of {best['name']}" if best else "—"
            lines.append(f"| {p.get('variant')} {r.get('dtype')} n={p.get('n')} | {fmt(r['gflops'] / 1000)} "
                         f"| {peak['percent']:.1f} % of {peak['name']}{flag} | {of_best} |")
    if len(lines) == 2:
        lines.append("| no GPU GEMM row carries a peak share (gpu_fma not measured) | — | — | — |")
    return lines


def shared_gpu_lines(out):
    """The runs with two ranks on one GPU: verified, and every GPU row flagged as sharing it.
    Returns (lines, problems)."""
    lines = ["", "| two ranks on one GPU | cases | verified | GPU rows flagged as shared |", "|---|---|---|---|"]
    problems = []
    for path in sorted(glob.glob(os.path.join(out, "shared", "*", "run.json"))):
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        results = record.get("results", [])
        # An emulated GPU (the CI rehearsal) is host memory: its rows are the CPU's, never flagged.
        gpu_rows = [r for r in results
                    if str(r.get("device", "")).startswith("gpu") and "emulated" not in str(r.get("device"))]
        flagged = [r for r in gpu_rows if "share one GPU" in (r.get("unreliable_because") or "")]
        name = record["resolved_input"]["run"]["name"]
        verified = sum(1 for r in results if r.get("verified"))
        lines.append(f"| {name} | {len(results)} | {verified} | {len(flagged)} of {len(gpu_rows)} |")
        if verified != len(results) or len(flagged) != len(gpu_rows):
            problems.append(f"{name}: {verified}/{len(results)} verified, {len(flagged)}/{len(gpu_rows)} flagged")
    return lines, problems


def steps_lines(out):
    """gpu_check.sh's steps in the order they ran, each with its status, seconds and why."""
    path = os.path.join(out, "steps.tsv")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        steps = list(csv.DictReader(f, delimiter="\t"))
    lines = ["", "| step | status | seconds | note |", "|---|---|---|---|"]
    lines += [f"| {s['step']} | {s['status']} | {s['seconds']} | {s['note']} |" for s in steps]
    skipped = [s["step"] for s in steps if s["status"] == "skipped"]
    lines += ["", f"Skipped ({len(skipped)}): {', '.join(skipped) if skipped else 'none'}."]
    return lines


def main():
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__)
        return
    out = sys.argv[1]
    gpus = []  # none where gpu_check.sh stopped before nvidia-smi answered
    if os.path.exists(os.path.join(out, "gpus.csv")):
        with open(os.path.join(out, "gpus.csv"), encoding="utf-8") as f:
            gpus = [[c.strip() for c in line] for line in csv.reader(f)]
    ref = {}
    ref_path = os.path.join(out, "reference.json")
    if os.path.exists(ref_path):
        try:
            with open(ref_path, encoding="utf-8") as f:
                ref = json.load(f)
        except json.JSONDecodeError:
            ref = {}
    runs = load_runs(out)
    runs.update(load_runs(out, "uniform"))  # apart from runs/: its rows must not pair with PyTorch's twice
    torch_rows = read_csvs(os.path.join(out, "torch", "*.csv"))
    lines = ["# miniGPU GPU check", ""]
    for g in gpus:
        lines.append(f"- GPU {g[0]}: {g[1]}, compute capability {g[2]}, driver {g[3]}, {g[4]}")
    lines += steps_lines(out)
    if ref:
        v = ref.get("cublas", 0)
        lines.append(f"- CUDA driver API {ref['cuda_driver'] // 1000}.{ref['cuda_driver'] % 1000 // 10}, "
                     f"cuBLAS {v // 10000}.{v // 100 % 100}.{v % 100}")
    if torch_rows:
        lines.append(f"- PyTorch {torch_rows[0].get('torch', '?')} (scripts/torch_reference.py)")
    lines += ["", "| quantity | miniGPU | reference (CUDA/cuBLAS called directly) | miniGPU / reference "
              "| PyTorch | miniGPU / PyTorch |", "|---|---|---|---|---|---|"]

    def add(quantity, mine, reference, unit, pytorch=None, same_call=False):
        ratio = mine / reference if mine is not None and reference else None
        vs_torch = mine / pytorch if mine is not None and pytorch else None
        shown = same_call_ratio(ratio) if same_call else fmt(ratio, 2)
        lines.append(f"| {quantity} | {fmt(mine)} {unit} | {fmt(reference)} {unit} | {shown} "
                     f"| {fmt(pytorch)} {unit} | {fmt(vs_torch, 2)} |")

    transfer = runs.get("transfer_gpu")
    copy_bytes = ref.get("copy_bytes", 1 << 28)
    for direction, kind, key in [("h2d", "pageable", "h2d_pageable_gbps"), ("h2d", "pinned", "h2d_pinned_gbps"),
                                 ("d2h", "pageable", "d2h_pageable_gbps"), ("d2h", "pinned", "d2h_pinned_gbps"),
                                 ("d2d", "-", "d2d_gbps")]:
        mine = None
        if transfer:
            match = list(rows(transfer, "transfer", direction=direction, host_memory=kind, bytes=copy_bytes,
                              chunks=1))
            mine = match[0]["gbps"] if match else None
        label = f"{direction.upper()} {'' if kind == '-' else kind + ' '}copy, {copy_bytes >> 20} MiB"
        add(label, mine, ref.get(key), "GB/s",
            torch_rate(torch_rows, "transfer", "gbps", direction=direction, host_memory=kind, bytes=copy_bytes,
                       chunks=1))

    # The small integers' rows, then those on values in [0, 1) (data: uniform, as torch.rand's),
    # whose reference is none: cuda_reference's integers ran other data.
    kinds = [(runs.get("matmul_gpu"), False, "vendor", "vendor (cuBLAS via miniGPU)"),
             (runs.get("matmul_gpu"), False, "tiled", "native tiled kernel"),
             (runs.get("matmul_uniform_gpu"), True, "vendor", "vendor on [0, 1) data"),
             (runs.get("matmul_uniform_gpu"), True, "tiled", "native tiled on [0, 1) data")]
    for entry in ref.get("gemm", []) or [{"n": 4096}]:
        n = entry["n"]
        for dtype, key, name in [("float32", "sgemm_tflops", "SGEMM"), ("float64", "dgemm_tflops", "DGEMM")]:
            for matmul, uniform, variant, label in kinds:
                match = [r for r in rows(matmul or {}, "matmul", n=n, variant=variant, dtype=dtype)
                         if r.get("device", "").startswith("gpu")]
                mine = match[0]["gflops"] / 1000 if match else None
                if mine is None and uniform:
                    continue  # a size that run did not take
                pytorch = torch_rate(torch_rows, "matmul", "gflops", dtype, n=n, variant="torch")
                add(f"{name} n={n}, {label}", mine, None if uniform else entry.get(key), "TFLOP/s",
                    pytorch / 1000 if pytorch is not None else None, same_call=variant == "vendor")
    # Small integers, which float32 and float64 verify exactly with, toggle fewer bits than
    # measured data: on a GPU at its power cap they run faster (cuBLAS DGEMM at n = 10000 on an
    # H200, 2026-11-29: 64.0-64.1 TFLOP/s against 55.5-56.2 on values in [-1, 1)).
    symmetric = [e for e in ref.get("gemm", []) if "dgemm_symmetric_tflops" in e]
    if symmetric:
        lines.append("- cuBLAS on values in [-1, 1) instead of miniGPU's small integers: " + "; ".join(
            f"n={e['n']}: SGEMM {fmt(e['sgemm_symmetric_tflops'])}, DGEMM {fmt(e['dgemm_symmetric_tflops'])} "
            f"TFLOP/s ({fmt(e['dgemm_symmetric_tflops'] / e['dgemm_tflops'], 2)}x the integers' DGEMM)"
            for e in symmetric if e.get("dgemm_tflops")) + ": at its power cap a GPU's rate depends on the data")
    lines += low_precision_lines(runs.get("matmul_low_precision_gpu"), ref, torch_rows,
                                 datasheet_of(gpus[0][1]) if gpus else None)

    lazy = runs.get("lazy_gpu")
    logging = runs.get("logging_gpu")
    lines += ["", "| the chapter's ratio | value | note |", "|---|---|---|"]
    for record, experiment, name in [(lazy, "lazy", "unfenced_over_fenced"), (lazy, "lazy", "host_detour_over_fenced"),
                                     (logging, "logging", "sync_over_device_log")]:
        for f in (record or {}).get("findings", []):
            if f["experiment"] == experiment and f["name"].startswith(name):
                lines.append(f"| {experiment}.{f['name']} | {fmt(f['value'])} {f['unit']} | {f['note']} |")
    for name in ("multi_gpu_concurrency_gpu", "matmul_strong_scaling_gpu", "matmul_weak_scaling_gpu"):
        for f in runs.get(name, {}).get("findings", []):
            if f["name"].startswith("efficiency"):
                lines.append(f"| {f['experiment']}.{f['name']} | {fmt(f['value'])} {f['unit']} | {f['note']} |")

    found = torch_compare.pairs(read_csvs(os.path.join(out, "runs", "*", "results.csv")), torch_rows)
    # A size both sides ran on the host and the GPU pairs twice per device: name both.
    lines += ["", "| the chapter against PyTorch, same node | device | miniGPU | peer | peer's time "
              "| miniGPU / peer (speed) |", "|---|---|---|---|---|---|"]
    for m, t, ratio in found:
        lines.append(f"| {torch_compare.describe(m)} | {m.get('device', '?')} | {fmt(float(m['median_s']))} s "
                     f"| {torch_compare.peer(t)} | {fmt(float(t['median_s']))} s | {fmt(ratio, 2)} |")
    if not found:
        lines.append("| no PyTorch rows (scripts/torch_reference.py did not run) | — | — | — | — | — |")

    lines += ["", "| run | cases | verified |", "|---|---|---|"]
    for name, record in runs.items():
        results = record.get("results", [])
        lines.append(f"| {name} | {len(results)} | {sum(1 for r in results if r.get('verified'))} |")
    lines += ceiling_lines(runs, gpus[0][1] if gpus else "")
    lines += clock_lines(out, runs)
    lines += peak_share_lines(runs)
    shared, problems = shared_gpu_lines(out)
    lines += shared
    print("\n".join(lines))
    if problems:
        sys.exit("gpu_report: two ranks on one GPU: " + "; ".join(problems))


if __name__ == "__main__":
    main()
