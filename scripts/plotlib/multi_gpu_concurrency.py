"""multi_gpu_concurrency: k multiplies in turn on one GPU vs at once on k GPUs: bars, speedup, efficiency."""
from .common import Canvas, finding_text, param
from .panels import bar_panel, findings_panel


def draw(plt, run, rows):
    canvas = Canvas(plt, run, "multi_gpu_concurrency — k multiplies: one GPU in turn vs k GPUs at once",
                    ncols=3, width=4.4)
    ax_t, ax_s, ax_e = canvas.axes
    by = {(r["dtype"], param(r, "mode")): r for r in rows}
    dtypes = sorted({r["dtype"] for r in rows})
    first = rows[0]
    bar_panel(canvas, ax_t, dtypes, ["sequential", "concurrent"], lambda g, s: by.get((g, s)), lambda g: g,
              f"n={param(first, 'n')}, {param(first, 'multiplies_per_gpu')} multiply per GPU")
    found, lines = run.findings_of("multi_gpu_concurrency"), {"speedup": {}, "efficiency": {}}
    for dtype in dtypes:
        k = int(param(by.get((dtype, "concurrent")) or first, "k") or 0)
        for kind in lines:
            if (f := found.get(f"{kind}_{dtype}")) and k:
                lines[kind][(f"{kind} {dtype}", kind, dtype, "-")] = [(k, f)]
    gpus = "GPUs k (one rank each)"
    findings_panel(canvas, ax_s, lines["speedup"], ("ideal speedup k", lambda p, _: p), "speedup (finding)",
                   "speedup: sequential / concurrent", gpus)
    findings_panel(canvas, ax_e, lines["efficiency"], ("ideal efficiency 100 %", lambda p, _: 100.0),
                   "efficiency (%, finding)", "efficiency: speedup / k", gpus)
    notes = [finding_text(f) for kind in lines for key, pts in lines[kind].items() for _, f in pts]
    ax_t.set_title("\n".join(notes), fontsize=8)
    return canvas.finish("mode / finding, dtype")
