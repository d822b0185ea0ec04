"""multi_gpu_concurrency: k multiplies in turn on one GPU vs at once on k GPUs, both phases of every
repetition: a bar per phase, speedup, efficiency."""
from .common import Canvas, finding_text, param
from .panels import bar_panel, findings_panel

# A bar's label -> the phase it draws, in the order a repetition runs them; the warm-up is no mode
# of the exercise (it readies the waiting ranks for the at-once phase) and gets no bar.
PHASES = {"in turn": "in_turn", "at once": "at_once"}


def draw(plt, run, rows):
    canvas = Canvas(plt, run, "multi_gpu_concurrency — k multiplies: one GPU in turn vs k GPUs at once",
                    ncols=3, width=4.4)
    ax_t, ax_s, ax_e = canvas.axes
    dtypes, first = sorted({r["dtype"] for r in rows}), rows[0]
    context = f"n={param(first, 'n')}, {param(first, 'multiplies_per_gpu')} multiply per GPU"
    if all("in_turn" in (r.get("phase_seconds") or {}) for r in rows):
        by = {r["dtype"]: r for r in rows}
        bar_panel(canvas, ax_t, dtypes, list(PHASES), lambda g, _: by.get(g), lambda g: g, context,
                  phase_of=PHASES.get)
    else:  # a run from before 2026-12-06 timed each mode as a row of its own
        by = {(r["dtype"], param(r, "mode")): r for r in rows}
        bar_panel(canvas, ax_t, dtypes, ["sequential", "concurrent"], lambda g, s: by.get((g, s)), lambda g: g,
                  context)
    found, lines = run.findings_of("multi_gpu_concurrency"), {"speedup": {}, "efficiency": {}}
    for dtype in dtypes:
        k = int(next((param(r, "k") for r in rows if r["dtype"] == dtype), 0) or 0)
        for kind in lines:
            if (f := found.get(f"{kind}_{dtype}")) and k:
                lines[kind][(f"{kind} {dtype}", kind, dtype, "-")] = [(k, f)]
    gpus = "GPUs k (one rank each)"
    findings_panel(canvas, ax_s, lines["speedup"], ("ideal speedup k", lambda p, _: p), "speedup (finding)",
                   "speedup: in turn / at once", gpus)
    findings_panel(canvas, ax_e, lines["efficiency"], ("ideal efficiency 100 %", lambda p, _: 100.0),
                   "efficiency (%, finding)", "efficiency: speedup / k", gpus)
    notes = [finding_text(f) for kind in lines for key, pts in lines[kind].items() for _, f in pts]
    ax_t.set_title("\n".join(notes), fontsize=8)
    return canvas.finish("phase / finding, dtype")
