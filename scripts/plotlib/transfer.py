"""transfer: copy bandwidth vs bytes, a panel per chunk count and one for rank-to-rank traffic."""
from collections import defaultdict

from .common import Canvas, ceilings, log_axis, param, series
from .panels import rate_points, y_range


HOST_DEVICE = ("h2d", "d2h", "d2d")
DIRECTION_ORDER = {d: i for i, d in enumerate(HOST_DEVICE + ("pingpong", "uni", "bi", "allreduce"))}


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


def draw(plt, run, rows):
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
