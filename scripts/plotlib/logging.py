"""logging: host sync every step vs a device-side log, as bars, the ratio finding above."""
from .common import Canvas, param
from .panels import bar_panel, titles


def draw(plt, run, rows):
    canvas = Canvas(plt, run, "logging — host sync every step vs loss log kept on the device")
    (ax,) = canvas.axes
    by = {(r["dtype"], r["device"], param(r, "mode")): r for r in rows}
    modes = [m for m in ("sync_each_step", "device_log") if any(k[2] == m for k in by)]
    modes += sorted({k[2] for k in by} - set(modes))
    first = rows[0]
    bar_panel(canvas, ax, sorted({(r["dtype"], r["device"]) for r in rows}), modes, lambda g, s: by.get((*g, s)),
              lambda g: f"{g[0]} on {g[1]}", f"{param(first, 'steps')} steps of an n={param(first, 'n')} matmul")
    ax.set_title("\n".join(titles(run, "logging", ["sync_over_device_log"])), fontsize=8)
    return canvas.finish("mode dtype")
