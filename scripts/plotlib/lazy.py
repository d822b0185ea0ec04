"""lazy: median time of each timing variant as bars, its ratio findings above."""
from .common import Canvas, param
from .panels import bar_panel, titles


def draw(plt, run, rows):
    canvas = Canvas(plt, run, "lazy — fenced vs unfenced timing of y = x²−0.5; z = y³−0.2")
    (ax,) = canvas.axes
    by = {(r["dtype"], r["device"], param(r, "variant")): r for r in rows}
    order = [c for c in ("fenced", "unfenced", "host_detour", "fused") if any(k[2] == c for k in by)]
    order += sorted({k[2] for k in by} - set(order))
    elements = ", ".join(sorted({param(r, "elements") for r in rows}))
    bar_panel(canvas, ax, sorted({(r["dtype"], r["device"]) for r in rows}), order, lambda g, s: by.get((*g, s)),
              lambda g: f"{g[0]} on {g[1]}", f"{elements} elements")
    ax.set_title("\n".join(titles(run, "lazy", ["unfenced_over_fenced", "host_detour_over_fenced",
                                                "unfused_over_fused"])), fontsize=8)
    return canvas.finish("variant dtype")
