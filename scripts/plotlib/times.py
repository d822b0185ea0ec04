"""Time figures (median seconds as bars, 95 % interval whiskers): lazy, logging, linear, and the
bar half of multi_gpu_concurrency. Ratios in the titles are the run's findings, not recomputed."""
from collections import defaultdict

from .common import Canvas, finding_text, is_reliable, median_ci, param, series, tag, time_unit


def bar_panel(canvas, ax, groups, names, row_of, group_text, context):
    """A bar per (group, name) with a row: median time, whisker = the median's 95 % interval,
    the dtype's marker at the median, hollow and hatched where the row is unreliable."""
    present = [(g, n, r) for g in groups for n in names if (r := row_of(g, n))]
    factor, unit = time_unit([median_ci(r["seconds"])[2] for _, _, r in present])
    xs, ticks, by_series, dtypes = {}, [], defaultdict(list), {r["dtype"] for _, _, r in present}
    for j, g in enumerate(groups):
        for i, n in enumerate(names):
            r = row_of(g, n)
            if not r:
                continue
            x = j * (len(names) + 0.6) + i
            xs[(g, n)] = x
            ticks.append((x, n))
            m, lo, hi = (factor * v for v in median_ci(r["seconds"]))
            colour = canvas.colour(n)
            bar = ax.bar(x, m, 0.8, color=colour, edgecolor=colour, linewidth=1.2, alpha=0.75)[0]
            if not is_reliable(r):
                bar.set_fill(False)
                bar.set_hatch("///")
            tag(bar, kind="bar", reliable=is_reliable(r), source=["row", r["_index"]])
            by_series[(n, r["dtype"])].append((x, m, lo, hi, r))
            ax.annotate(f"{m:.3g}", (x, hi), ha="center", va="bottom", fontsize=8, xytext=(0, 3),
                        textcoords="offset points")
    for (n, dtype), pts in by_series.items():
        series(canvas, ax, pts, label=f"{n} {dtype}", colour_key=n, dtype=dtype, dtypes=dtypes, kind="time",
               linestyle="none", scale=factor)
    ax.set_xticks([t[0] for t in ticks])
    ax.set_xticklabels([t[1] for t in ticks], fontsize=8, rotation=0)
    ax.set_xlim(min(t[0] for t in ticks) - 0.7, max(t[0] for t in ticks) + 0.7)
    ax.set_ylabel(f"median time per repetition ({unit})\nwhiskers: 95 % interval of the median")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.15)
    ax.grid(True, axis="y", alpha=0.3)
    if len(groups) > 1:  # group names as unlabelled-tick minor labels, a line below the bar names
        centres = [sum(x for (g2, _), x in xs.items() if g2 == g) / sum(g2 == g for g2, _ in xs) for g in groups]
        ax.set_xticks(centres, [group_text(g) for g in groups], minor=True)
        ax.tick_params(axis="x", which="minor", length=0, pad=16, labelsize=8)
    ax.set_xlabel((group_text(groups[0]) if len(groups) == 1 else "") + f"  ({context})")
    return present


def titles(run, experiment, prefixes):
    """The findings whose names start with one of `prefixes`, a line each."""
    found = run.findings_of(experiment)
    return [finding_text(f) for p in prefixes for name, f in sorted(found.items()) if name.startswith(p)]


def plot_lazy(plt, run, rows):
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


def plot_logging(plt, run, rows):
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


def plot_linear(plt, run, rows):
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
