"""The figure of an experiment that has no drawer of its own: each case's median time as bars,
grouped by dtype and device, with every finding the experiment reported above. A new
experiment is drawn from its registration alone; a drawer `plotlib/<name>.py` replaces this
one when the experiment wants its own axes (sizes on a log axis, ranks, …)."""
from .common import Canvas
from .panels import bar_panel, titles


def draw_any(plt, run, experiment, rows):
    described = {e.get("name"): e.get("description", "") for e in run.record.get("experiments", [])}
    canvas = Canvas(plt, run, f"{experiment} — {described.get(experiment, '')}".rstrip(" —"))
    (ax,) = canvas.axes
    groups = sorted({(r["dtype"], r["device"]) for r in rows})
    varying, fixed = split_params(rows)
    label = {r["_index"]: case_of(r, varying) for r in rows}
    cases = list(dict.fromkeys(label.values()))
    by = {(r["dtype"], r["device"], label[r["_index"]]): r for r in rows}
    bar_panel(canvas, ax, groups, cases, lambda g, c: by.get((*g, c)), lambda g: f"{g[0]} on {g[1]}",
              ", ".join(f"{k}={v}" for k, v in fixed.items()) or f"{len(rows)} cases")
    if max(len(c) for c in cases) * len(cases) * len(groups) > 60:
        ax.tick_params(axis="x", which="major", labelrotation=20)
    ax.set_title("\n".join(titles(run, experiment, [""])), fontsize=8)
    return canvas.finish(" ".join(varying) + " dtype" if varying else "dtype")


def split_params(rows):
    """The parameters whose values tell the cases apart, and those all cases share."""
    values = {}
    for r in rows:
        for k, v in (r.get("params") or {}).items():
            values.setdefault(k, set()).add(v)
    varying = [k for k, vs in values.items() if len(vs) > 1 or any(k not in (r.get("params") or {}) for r in rows)]
    fixed = {k: next(iter(vs)) for k, vs in values.items() if k not in varying}
    return varying, fixed


def case_of(row, varying):
    """A case's bar name: its varying parameters (the value alone where only one varies)."""
    params = row.get("params") or {}
    if len(varying) == 1:
        return str(params.get(varying[0], "")) or row.get("case", "")
    return " ".join(f"{k}={params[k]}" for k in varying if k in params) or row.get("case", "")
