"""linear: SGD training time by where the data and the loss log live, as bars."""
from .common import Canvas, param
from .panels import bar_panel, titles


def draw(plt, run, rows):
    canvas = Canvas(plt, run, "linear — SGD training: where the data and the loss log live")
    (ax,) = canvas.axes
    train = [r for r in rows if param(r, "data") not in ("", "-")] or rows
    by = {(r["dtype"], param(r, "data"), param(r, "loss")): r for r in train}
    groups = sorted({(r["dtype"], param(r, "data")) for r in train}, key=lambda g: (g[0], g[1] != "per_batch_copy"))
    first = train[0]
    bar_panel(canvas, ax, groups, sorted({param(r, "loss") for r in train}, reverse=True),
              lambda g, s: by.get((*g, s)),
              lambda g: f"{g[0]}, data {g[1]}",
              f"training data; {param(first, 'samples')} samples, batch {param(first, 'batch_size')}")
    ax.set_title("\n".join(t.split(" (")[0] if len(t) > 90 else t for t in titles(run, "linear", [""])), fontsize=7.5)
    return canvas.finish("loss log dtype")
