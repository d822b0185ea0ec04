"""matmul: GFLOP/s vs n per device, variant and dtype on log axes, with the host's ceilings."""
from collections import defaultdict

from .common import Canvas, ceilings, is_reliable, log_axis, param, reasons_of, series
from .panels import rate_points, y_range


def draw(plt, run, rows):
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
