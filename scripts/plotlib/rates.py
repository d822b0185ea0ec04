"""Rate figures (GFLOP/s, GB/s on log axes): matmul's size sweep and transfer's copy sizes."""
from collections import defaultdict

from .common import Canvas, ceilings, is_reliable, log_axis, param, rate_of, reasons_of, series

HOST_DEVICE = ("h2d", "d2h", "d2d")
DIRECTION_ORDER = {d: i for i, d in enumerate(HOST_DEVICE + ("pingpong", "uni", "bi", "allreduce"))}


def rate_points(rows, unit, x_of):
    """[(x, rate, low, high, row)] for the rows with a positive rate (a log axis has no 0)."""
    out = []
    for r in rows:
        rate, lo, hi = rate_of(r, unit)
        if rate > 0:
            out.append((x_of(r), rate, lo, hi, r))
    return out


def y_range(points, extra=()):
    values = [v for p in points for v in (p[1], p[2], p[3]) if v and v > 0] + list(extra)
    return min(values), max(values)


def plot_matmul(plt, run, rows):
    canvas = Canvas(plt, run, "matmul — CPU vs GPU matrix multiply: GFLOP/s vs n", width=7.5)
    (ax,) = canvas.axes
    lines = defaultdict(list)
    for r in rows:
        lines[(r["device"], param(r, "variant"), r["dtype"])].append(r)
    dtypes, everything = {k[2] for k in lines}, []
    for (device, variant, dtype), group in sorted(lines.items()):
        pts = rate_points(group, "GFLOP/s", lambda r: float(param(r, "n")))
        everything += pts
        series(canvas, ax, pts, label=f"{device} {variant} {dtype}", colour_key=f"{device} {variant}", dtype=dtype,
               dtypes=dtypes, kind="rate", unit="GFLOP/s")
    tops = ceilings(canvas, ax, rows, "GFLOP/s")
    crossings, notes = defaultdict(list), []
    for name, f in sorted(run.findings_of("matmul").items()):
        if not name.startswith("crossover_n_"):
            continue
        what = name[len("crossover_n_"):].replace("_", " ")
        if f.get("value") is None:
            notes.append(f"no crossover for {what}: {f.get('note', '').split(';')[0]}")
        else:
            crossings[f["value"]].append(what + ("" if is_reliable(f) else " (unreliable)"))
        if not is_reliable(f) and f"unreliable: {reasons_of(f)[0]}" not in notes:
            notes.append(f"unreliable: {reasons_of(f)[0]}")
    for i, (n, whats) in enumerate(sorted(crossings.items())):
        style = dict(color=["dimgray", "darkgray", "silver"][i % 3], linestyle=(0, (8, 2, 1, 2 + i)), linewidth=1.4)
        ax.axvline(n, **style)
        canvas.handle(f"GPU faster from n={n:g}:\n  " + "\n  ".join(whats), **style)
    notes.insert(0, "crossover (grey verticals): the smallest n from which the GPU's GFLOP/s beat the CPU's")
    ax.set_title("\n".join(notes), fontsize=8)
    if everything:
        xs = [p[0] for p in everything]
        log_axis(ax, "x", min(xs), max(xs))
        log_axis(ax, "y", *y_range(everything, tops))
    ax.set_xlabel("matrix size n (n×n operands, log scale)")
    ax.set_ylabel("GFLOP/s = 2n³ / median time (log scale)\nbars: 95 % interval of the median")
    return canvas.finish("device variant dtype")


def transfer_panels(rows):
    """(title, rows) per panel: host/device copies one panel per chunk count, rank-to-rank
    traffic (pingpong, uni, bi, allreduce, any later kind) in a panel of its own."""
    local = [r for r in rows if param(r, "direction") in HOST_DEVICE]
    ranks = [r for r in rows if param(r, "direction") not in HOST_DEVICE]
    chunks = sorted({int(param(r, "chunks", "1") or 1) for r in local})
    panels = [("one copy of all the bytes" if k == 1 else f"{k} copies of size/{k} each",
               [r for r in local if int(param(r, "chunks", "1") or 1) == k]) for k in chunks]
    return panels + ([("rank to rank", ranks)] if ranks else [])


def series_name(row, keys):
    return " ".join(v for k in keys if (v := param(row, k)) not in ("", "-"))


def plot_transfer(plt, run, rows):
    panels = transfer_panels(rows)
    canvas = Canvas(plt, run, "transfer — copy bandwidth vs size: one big copy vs many small ones",
                    ncols=len(panels), width=5.2 if len(panels) > 1 else 7.5)
    dtypes, everything, tops = {r["dtype"] for r in rows}, [], []
    for ax, (title, panel_rows) in zip(canvas.axes, panels):
        # Name a series by what varies within its panel (memory kind, path, pairing, chunks): never a
        # constant column, so a new column shows up only where it tells the series apart.
        keys = ["direction"] + [k for k in ("host_memory", "path", "pairs", "chunks")
                                if len({param(r, k) for r in panel_rows} - {"", "-"}) > 1]
        by = defaultdict(list)
        for r in panel_rows:
            by[(series_name(r, keys), r["dtype"])].append(r)
        for (name, dtype), group in sorted(by.items(), key=lambda kv: (DIRECTION_ORDER.get(
                param(kv[1][0], "direction"), 99), kv[0])):
            pts = rate_points(group, "GB/s", lambda r: float(param(r, "bytes") or r.get("bytes", 0)))
            everything += pts
            label = name + (f" {dtype}" if len(dtypes) > 1 else "")
            series(canvas, ax, pts, label=label, colour_key=name, dtype=dtype, dtypes=dtypes, kind="rate", unit="GB/s",
                   linestyle="--" if param(group[0], "host_memory") == "pinned" else "-")
        tops += ceilings(canvas, ax, panel_rows, "GB/s")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("bytes moved per repetition (log scale)")
        ax.set_ylabel("bandwidth (GB/s, log scale)\nbars: 95 % interval of the median")
    if everything:
        xs = [p[0] for p in everything]
        for ax in canvas.axes:  # one range for all panels, so they compare at a glance
            log_axis(ax, "x", min(xs), max(xs), unit="B")
            log_axis(ax, "y", *y_range(everything, tops))
            ax.tick_params(axis="x", labelsize=7, labelrotation=60)
    return canvas.finish("direction" + (" dtype" if len(dtypes) > 1 else ""))

