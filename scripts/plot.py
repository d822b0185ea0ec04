#!/usr/bin/env python3
"""Plots a minigpu run: PNG figures written next to its results.csv, one per experiment present.

Usage: plot.py RESULTS_DIR [RESULTS_DIR ...]
A RESULTS_DIR is a run directory (results.csv + run.json); a CSV file is accepted too (figures
go next to it, run.json beside it is optional). Prints the path of every figure written.
Exit codes: 0 done, 2 usage error (e.g. a directory without results.csv)."""
import csv
import json
import os
import sys
from collections import defaultdict

DPI = 100


def die(message):
    print(f"plot.py: {message}", file=sys.stderr)
    sys.exit(2)


def import_pyplot():
    """matplotlib with the Agg backend; re-runs under Debian's /usr/bin/python3 when the python3
    on PATH (pyenv, venv) lacks it."""
    try:
        import matplotlib
    except ImportError:
        system = "/usr/bin/python3"
        if (os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system)
                and not os.environ.get("MINIGPU_PLOT_REEXEC")):
            os.environ["MINIGPU_PLOT_REEXEC"] = "1"
            os.execv(system, [system] + sys.argv)
        die("matplotlib is missing: apt-get install python3-matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def read_rows(path):
    """results.csv as a list of dicts, one per case."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def machine_label(record, rows):
    """Two footnote lines: host, devices (emulated ones say so), MPI size, Kokkos backends."""
    if not record:
        return "devices: " + ", ".join(sorted({r.get("device", "") for r in rows} - {""})) + "  (no run.json)"
    host, kokkos, mpi = record.get("host", {}), record.get("kokkos", {}), record.get("mpi", {})
    gpus = record.get("devices", {}).get("gpus", []) or ["none"]
    return (f"host: {host.get('cpu', '?')} ({host.get('hostname', '?')}, {host.get('logical_cores', '?')} cores)"
            f" | GPUs: {', '.join(gpus)} | MPI ranks: {mpi.get('size', '?')}\n"
            f"Kokkos {kokkos.get('version', '?')} [{', '.join(kokkos.get('backends', []))}]"
            f" | minigpu {record.get('minigpu', {}).get('version', '?')} | run started {record.get('started', '?')}")


def new_figure(plt, title, label, ncols=1, width=8.0):
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, 5.0), squeeze=False)
    fig.suptitle(title, fontsize=12, fontweight="bold")
    fig.text(0.5, 0.01, label, ha="center", va="bottom", fontsize=7.5, color="dimgray")
    return fig, list(axes[0])


def save(plt, fig, path):
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def findings_of(record, experiment):
    return {f["name"]: f for f in (record or {}).get("findings", []) if f.get("experiment") == experiment}


def time_unit(seconds):
    """(factor, unit) that puts the largest of `seconds` between 1 and 1000."""
    top = max([s for s in seconds if s] or [1])
    return next(((f, u) for f, u in ((1, "s"), (1e3, "ms"), (1e6, "µs")) if top * f >= 1), (1e9, "ns"))


def bytes_text(b):
    scale, unit = next(((2**e, u) for e, u in ((30, "GiB"), (20, "MiB"), (10, "KiB"), (0, "B")) if b >= 2**e),
                       (1, "B"))
    return f"{b / scale:g} {unit}"


def log_axes(plt, ax, xs, xtext):
    """Log x (base 2, ticks at the measured sizes) and log y with plain-number labels."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels([xtext(x) for x in xs], fontsize=8, rotation=30 if len(xs) > 6 else 0)
    ax.xaxis.set_minor_locator(plt.NullLocator())
    ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}" if f"{v:e}"[0] in "25" else ""))
    ax.grid(True, which="both", alpha=0.3)


def grouped_bars(ax, groups, series, row_of):
    """Median-time bars with min–max whiskers: a group per `groups` entry, a bar per series."""
    factor, unit = time_unit([num(r["max_s"]) for g in groups for s in series if (r := row_of(g, s))])
    width = 0.8 / max(len(series), 1)
    for i, s in enumerate(series):
        rows = [row_of(g, s) for g in groups]
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(groups))]
        t = {k: [factor * num(r[k]) if r else 0 for r in rows] for k in ("min_s", "median_s", "max_s")}
        ax.bar(xs, t["median_s"], width, yerr=[[m - lo for m, lo in zip(t["median_s"], t["min_s"])],
                                               [hi - m for m, hi in zip(t["median_s"], t["max_s"])]],
               capsize=3, label=s, color=f"C{i}")
        for x, m, hi in zip(xs, t["median_s"], t["max_s"]):
            if m:
                ax.annotate(f"{m:.3g}", (x, hi), ha="center", va="bottom", fontsize=8, xytext=(0, 2),
                            textcoords="offset points")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([" / ".join(g) if isinstance(g, tuple) else g for g in groups])
    ax.set_ylabel(f"median time per repetition ({unit}); whiskers min–max")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.15)
    ax.legend(fontsize=8)


def plot_matmul(plt, rows, record, label):
    fig, (ax,) = new_figure(plt, "matmul — CPU vs GPU matrix multiply: GFLOP/s vs n", label, width=10)
    lines = defaultdict(list)
    for r in rows:
        lines[(r["device"], r["variant"], r["dtype"])].append((num(r["n"]), num(r["gflops"])))
    devices, variants, dtypes = (sorted({k[i] for k in lines}) for i in range(3))
    for (device, variant, dtype), pts in sorted(lines.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=f"C{devices.index(device)}",
                linestyle=["-", "--", ":", "-."][variants.index(variant) % 4],
                marker="os^D"[dtypes.index(dtype) % 4], label=f"{device} {variant} {dtype}")
    sizes = sorted({p[0] for pts in lines.values() for p in pts})
    log_axes(plt, ax, sizes, lambda n: f"{n:g}")
    crossings, never, emulated = defaultdict(list), [], False
    for name, f in sorted(findings_of(record, "matmul").items()):
        if name.startswith("crossover_n_") and f.get("value"):  # 0: no GPU, nothing to cross
            what = name[len("crossover_n_"):].replace("_", " ")
            (never if "still faster" in f.get("note", "") else crossings[f["value"]]).append(what)
            emulated |= "emulated" in f.get("note", "")
    for i, (n, whats) in enumerate(sorted(crossings.items())):
        ax.axvline(n, color=["black", "dimgray", "darkgray"][i % 3], linestyle=(0, (4, 2 + 2 * i)), linewidth=1.2,
                   label=f"GPU faster from n={n:g}:\n  " + "\n  ".join(whats))
    notes = ["crossover (grey verticals): the smallest n from which the GPU's GFLOP/s beat the CPU's"]
    if never:
        notes.append(f"no crossover up to n={sizes[-1]:g} for: {', '.join(never)}")
    if emulated:
        notes.append("emulated GPU = same host as the CPU: crossovers here are noise, not hardware")
    ax.set_title("\n".join(notes), fontsize=8)
    ax.set_xlabel("matrix size n (n×n operands, log scale)")
    ax.set_ylabel("GFLOP/s = 2n³ / median time (log scale)")
    ax.legend(fontsize=8, title="device variant dtype; crossover", title_fontsize=8, loc="upper left",
              bbox_to_anchor=(1.01, 1))
    return fig


def plot_transfer(plt, rows, record, label):
    chunks = sorted({int(num(r["chunks"]) or 1) for r in rows})
    fig, axes = new_figure(plt, "transfer — copy bandwidth vs size: one big copy vs many small ones",
                           label, ncols=len(chunks), width=5.5 if len(chunks) > 1 else 8)
    order = {"h2d": 0, "d2h": 1, "d2d": 2}
    kinds = sorted({(r["direction"], r["host_memory"]) for r in rows}, key=lambda k: (order.get(k[0], 9), k))
    for ax, k in zip(axes, chunks):
        for i, (direction, memory) in enumerate(kinds):
            pts = sorted((num(r["bytes"]), num(r["gbps"])) for r in rows if int(num(r["chunks"]) or 1) == k
                         and (r["direction"], r["host_memory"]) == (direction, memory))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=f"C{i}",
                    label=direction if memory in ("", "-") else f"{direction} {memory}",
                    linestyle="--" if memory == "pinned" else "-")
        log_axes(plt, ax, sorted({num(r["bytes"]) for r in rows}), bytes_text)
        ax.set_xlabel("bytes moved per repetition (log₂ scale)")
        ax.set_ylabel("bandwidth (GB/s, log scale)")
        ax.set_title("one copy of all the bytes" if k == 1 else f"{k} copies of size/{k} each", fontsize=10)
        ax.legend(fontsize=8)
    lo, hi = min(a.get_ylim()[0] for a in axes), max(a.get_ylim()[1] for a in axes)
    for a in axes:  # one y range, so the panels compare at a glance
        a.set_ylim(lo, hi)
    return fig


def ratio_title(record, experiment, names):
    """The named ratio findings on one line, the first one's note (after its "(dtype, device): ") below."""
    found = [f for n in names for name, f in sorted(findings_of(record, experiment).items())
             if name == n or name.startswith(n + "_")]
    note = found[0].get("note", "").split("): ", 1)[-1] if found else ""
    return "; ".join(f"{f['name']} = {f['value']:.3g}×" if f.get("value") is not None else f"{f['name']} = n/a"
                     for f in found) + (f"\n{note}" if note else "")


def plot_lazy(plt, rows, record, label):
    fig, (ax,) = new_figure(plt, "lazy — fenced vs unfenced timing of y = x²−0.5; z = y³−0.2", label)
    by = {(r["dtype"], r["device"], r["variant"]): r for r in rows}
    order = [c for c in ("fenced", "unfenced", "host_detour", "fused") if any(k[2] == c for k in by)]
    grouped_bars(ax, sorted({(r["dtype"], r["device"]) for r in rows}), order, lambda g, s: by.get((*g, s)))
    ax.set_title(ratio_title(record, "lazy", ["unfenced_over_fenced", "host_detour_over_fenced", "unfused_over_fused"]),
                 fontsize=9)
    ax.set_xlabel(f"dtype / device  ({', '.join(sorted({r['elements'] for r in rows}))} elements)")
    return fig


def plot_logging(plt, rows, record, label):
    fig, (ax,) = new_figure(plt, "logging — host sync every step vs loss log kept on the device", label)
    by = {(r["dtype"], r["device"], r["mode"]): r for r in rows}
    groups = sorted({(r["dtype"], r["device"]) for r in rows})
    grouped_bars(ax, groups, ["sync_each_step", "device_log"], lambda g, s: by.get((*g, s)))
    ratios = [f"{g[0]}: sync_each_step / device_log = {num(a['median_s']) / num(b['median_s']):.3g}×"
              for g in groups if (a := by.get((*g, "sync_each_step"))) and (b := by.get((*g, "device_log")))
              and num(b["median_s"])]
    ax.set_title("; ".join(ratios), fontsize=10, fontweight="bold")
    ax.set_xlabel(f"dtype / device  ({rows[0].get('steps')} steps of an n={rows[0].get('n')} matmul)")
    return fig


def plot_linear(plt, rows, record, label):
    fig, (ax,) = new_figure(plt, "linear — SGD training: where the data and the loss log live", label)
    train = [r for r in rows if r.get("data") not in (None, "", "-")] or rows
    by = {(r["dtype"], r["data"], r["loss"]): r for r in train}
    groups = sorted({(r["dtype"], r["data"]) for r in train}, key=lambda g: (g[0], g[1] != "per_batch_copy"))
    grouped_bars(ax, groups, sorted({r["loss"] for r in train}, reverse=True), lambda g, s: by.get((*g, s)))
    ax.legend(fontsize=8, title="loss log", title_fontsize=8)
    ax.set_xlabel(f"dtype / training data  ({train[0].get('samples')} samples, batch {train[0].get('batch_size')})")
    return fig


def scaling_groups(rows):
    """(mode, decomposition, dtype) -> [(ranks, row)] sorted by ranks; the first is the baseline."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r.get("mode") or "strong", r["decomposition"], r["dtype"])].append((int(num(r["ranks"])), r))
    return {k: sorted(v, key=lambda t: t[0]) for k, v in sorted(groups.items())}


def scaling_split(plt, ax, groups, all_p, short):
    """Stacked compute + comm phase medians per rank count, the whole-case median as ×."""
    factor, unit = time_unit([num(r["median_s"]) for pts in groups.values() for _, r in pts])
    width = 0.8 / max(len(groups), 1)
    for i, (key, pts) in enumerate(groups.items()):
        xs = [all_p.index(p) + (i - (len(groups) - 1) / 2) * width for p, _ in pts]
        comp = [factor * (num(r.get("compute_median_s")) or 0) for _, r in pts]
        comm = [factor * (num(r.get("comm_median_s")) or 0) for _, r in pts]
        ax.bar(xs, comp, width, color=f"C{i}", label=f"{short[key]} compute")
        ax.bar(xs, comm, width, bottom=comp, color=f"C{i}", alpha=0.4, hatch="//", label=f"{short[key]} comm")
        ax.plot(xs, [factor * num(r["median_s"]) for _, r in pts], "kx", label="total median" if i == 0 else None)
        for x, a, b in zip(xs, comp, comm):
            if a + b:
                ax.annotate(f"{100 * b / (a + b):.0f}%", (x, a + b), ha="center", va="bottom", xytext=(0, 2),
                            fontsize=7 if len(groups) < 3 else 6, textcoords="offset points")
    ax.set(xticks=range(len(all_p)), xticklabels=[str(p) for p in all_p], xlabel="MPI ranks p",
           ylabel=f"median time per phase ({unit}, slowest rank)")
    ax.set_ylim(0, ax.get_ylim()[1] * (1.2 + 0.1 * len(groups)))
    ax.set_title("compute / comm split (% = comm share; ×: whole-case median)", fontsize=10)
    ax.legend(fontsize=7, ncol=2, loc="upper center")


def plot_scaling(plt, rows, record, label):
    fig, (ax_s, ax_e, ax_split) = new_figure(plt, "matmul_scaling — distributed C = A·B over MPI ranks "
                                             f"(comm path: {', '.join(sorted({r['comm_path'] for r in rows}))})",
                                             label, ncols=3, width=5.3)
    groups = scaling_groups(rows)
    all_p = sorted({p for pts in groups.values() for p, _ in pts})
    modes, short = {k[0] for k in groups}, {}
    for i, ((mode, decomposition, dtype), pts) in enumerate(groups.items()):
        (p1, base), ps = pts[0], [p for p, _ in pts]
        t1, tp = num(base["median_s"]), [num(r["median_s"]) for _, r in pts]
        # strong: S = t1/tp, E = p1·t1/(p·tp); weak (n grows with p): scaled S = p·t1/(p1·tp), E = t1/tp
        speedup = [t1 / t if mode == "strong" else p * t1 / (p1 * t) for p, t in zip(ps, tp)]
        eff = [100 * p1 * t1 / (p * t) if mode == "strong" else 100 * t1 / t for p, t in zip(ps, tp)]
        name = f"{decomposition} {dtype}, {mode} n={base['n']}" + ("" if mode == "strong" else "·∛p")
        short[(mode, decomposition, dtype)] = f"{decomposition} {dtype}" + (f" {mode}" if len(modes) > 1 else "")
        ax_s.plot(ps, speedup, marker="o", color=f"C{i}", label=name)
        ax_e.plot(ps, eff, marker="o", color=f"C{i}", label=name)
    ax_s.plot(all_p, [p / all_p[0] for p in all_p], "k--", linewidth=1, label="ideal")
    ax_e.axhline(100, color="k", linestyle="--", linewidth=1, label="ideal")
    ax_s.set_ylabel("speedup t(1)/t(p)" + ("; weak: scaled p·t(1)/t(p)" if "weak" in modes else ""))
    ax_e.set_ylabel("parallel efficiency (%)")
    ax_e.set_ylim(0, max(110, ax_e.get_ylim()[1]))
    for ax, title in ((ax_s, "speedup"), (ax_e, "efficiency")):
        if all_p[-1] >= 8 * all_p[0]:
            ax.set_xscale("log", base=2)
            ax.xaxis.set_minor_locator(plt.NullLocator())
        ax.set(xlabel="MPI ranks p" + (" (log₂ scale)" if all_p[-1] >= 8 * all_p[0] else ""), xticks=all_p,
               xticklabels=[str(p) for p in all_p])
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    scaling_split(plt, ax_split, groups, all_p, short)
    return fig


def plot_concurrency(plt, rows, record, label):
    fig, (ax,) = new_figure(plt, "multi_gpu_concurrency — k multiplies: one GPU in turn vs k GPUs at once", label)
    by = {(r["dtype"], r["mode"]): r for r in rows}
    dtypes = sorted({r["dtype"] for r in rows})
    grouped_bars(ax, dtypes, ["sequential", "concurrent"], lambda g, s: by.get((g, s)))
    found, notes = findings_of(record, "multi_gpu_concurrency"), []
    for dtype in dtypes:
        seq, conc = by.get((dtype, "sequential")), by.get((dtype, "concurrent"))
        if seq and conc and num(conc["median_s"]):
            k = int(num(conc.get("k")) or 1)
            speedup = found.get(f"speedup_{dtype}", {}).get("value") or num(seq["median_s"]) / num(conc["median_s"])
            eff = found.get(f"efficiency_{dtype}", {}).get("value") or 100 * speedup / k
            notes.append(f"{dtype}, k={k}: speedup {speedup:.2f}× (ideal {k}), efficiency {eff:.0f}%")
    ax.set_title("\n".join(notes), fontsize=10, fontweight="bold")
    ax.set_xlabel(f"dtype  (n={rows[0].get('n')}, {rows[0].get('multiplies_per_gpu')} multiply per GPU)")
    return fig


FIGURES = {  # experiment -> (file name, plotter); the order figures are written in
    "matmul": ("matmul_gflops.png", plot_matmul), "transfer": ("transfer_bandwidth.png", plot_transfer),
    "lazy": ("lazy_fence.png", plot_lazy), "logging": ("logging_sync.png", plot_logging),
    "linear": ("linear_training.png", plot_linear), "matmul_scaling": ("scaling.png", plot_scaling),
    "multi_gpu_concurrency": ("concurrency.png", plot_concurrency),
}


def locate(arg):
    """(results.csv, run.json or None, output directory) for a run directory or a CSV file."""
    if os.path.isfile(arg) and arg.endswith(".csv"):
        csv_path, out_dir = arg, os.path.dirname(os.path.abspath(arg))
    elif os.path.isfile(os.path.join(arg, "results.csv")):
        csv_path, out_dir = os.path.join(arg, "results.csv"), arg
    else:
        die(f"{arg}: no results.csv (expected a minigpu run directory)")
    json_path = os.path.join(out_dir, "run.json")
    return csv_path, json_path if os.path.isfile(json_path) else None, out_dir


def plot_run(plt, csv_path, json_path, out_dir):
    rows, record = read_rows(csv_path), None
    if json_path:
        with open(json_path, encoding="utf-8") as f:
            record = json.load(f)
    label, by_experiment = machine_label(record, rows), defaultdict(list)
    for r in rows:
        by_experiment[r.get("experiment", "")].append(r)
    return [save(plt, plotter(plt, by_experiment[e], record, label), os.path.join(out_dir, name))
            for e, (name, plotter) in FIGURES.items() if by_experiment.get(e)]


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    runs = [locate(a) for a in argv]
    plt = import_pyplot()
    for csv_path, json_path, out_dir in runs:
        paths = plot_run(plt, csv_path, json_path, out_dir)
        print("\n".join(paths) if paths else f"plot.py: {csv_path}: no experiment with a figure", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
