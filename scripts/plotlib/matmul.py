"""matmul: GFLOP/s vs n per device, variant and dtype on log axes, with the host's ceilings; where
rows carry an error against float64 (bfloat16, float16, TF32), a second panel of that error vs n."""
from collections import defaultdict

from .common import Canvas, ceilings, is_reliable, log_axis, marker_of, param, reasons_of, series
from .panels import rate_points, y_range


def error_panel(canvas, ax, lines, dtypes):
    """max|C−AB|/mean|AB| (solid) and ‖C−AB‖_F/‖AB‖_F (dashed) vs n for each series that has them."""
    ns = []
    for (device, variant, dtype), group in sorted(lines.items()):
        pts = sorted((float(param(r, "n")), r["error"]) for r in group if r.get("error"))
        if not pts:
            continue
        ns += [n for n, _ in pts]
        colour = canvas.colour(f"{device} {variant}")
        for key, style in (("max_abs_rel", "-"), ("frobenius_rel", "--")):
            got = [(n, e[key]) for n, e in pts if e.get(key)]
            ax.plot([n for n, _ in got], [v for _, v in got], linestyle=style, marker=marker_of(dtype, dtypes),
                    color=colour,
                    label=f"{device} {variant} {dtype} {key}")
    if ns:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("matrix size n (log scale)")
    ax.set_ylabel("error against float64 (log scale)")
    ax.set_title("each precision's error on inputs uniform in [0, 1]\n"
                 "solid: max|C−AB| / mean|AB|; dashed: ‖C−AB‖_F / ‖AB‖_F", fontsize=8)


def draw(plt, run, rows):
    errors = any(r.get("error") for r in rows)
    canvas = Canvas(plt, run, "matmul — CPU vs GPU matrix multiply: GFLOP/s vs n" +
                    (", and each precision's error" if errors else ""), ncols=2 if errors else 1, width=7.5)
    ax = canvas.axes[0]
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
    if errors:
        error_panel(canvas, canvas.axes[1], lines, dtypes)
    ax.set_xlabel("matrix size n (n×n operands, log scale)")
    ax.set_ylabel("GFLOP/s = 2n³ / median time (log scale)\nbars: 95 % interval of the median")
    return canvas.finish("device variant dtype")
