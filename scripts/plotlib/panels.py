"""Panels more than one experiment draws: bars of median times, findings vs ranks, rate ranges."""
from collections import defaultdict

import matplotlib.ticker as mt

from .common import finding_text, is_reliable, median_ci, rate_of, series, tag, time_unit


def bar_panel(canvas, ax, groups, names, row_of, group_text, context, phase_of=None):
    """A bar per (group, name) with a row: median time, whisker = the median's 95 % interval,
    the dtype's marker at the median, hollow and hatched where the row is unreliable. With
    phase_of, name n's bar is the row's phase phase_of(n) (run.json's phase_seconds), not its
    whole repetition."""
    def stats(r, n):
        return r["phase_seconds"][phase_of(n)] if phase_of else r["seconds"]

    present = [(g, n, r) for g in groups for n in names if (r := row_of(g, n))]
    factor, unit = time_unit([median_ci(stats(r, n))[2] for _, n, r in present])
    xs, ticks, by_series, dtypes = {}, [], defaultdict(list), {r["dtype"] for _, _, r in present}
    for j, g in enumerate(groups):
        for i, n in enumerate(names):
            r = row_of(g, n)
            if not r:
                continue
            x = j * (len(names) + 0.6) + i
            xs[(g, n)] = x
            ticks.append((x, n))
            m, lo, hi = (factor * v for v in median_ci(stats(r, n)))
            colour = canvas.colour(n)
            bar = ax.bar(x, m, 0.8, color=colour, edgecolor=colour, linewidth=1.2, alpha=0.75)[0]
            if not is_reliable(r):
                bar.set_fill(False)
                bar.set_hatch("///")
            tag(bar, kind="bar", reliable=is_reliable(r), source=["row", r["_index"]])
            by_series[(n, r["dtype"])].append((x, m, lo, hi, r))
            ax.annotate(f"{m:.3g}", (x, hi), ha="center", va="bottom", fontsize=8, xytext=(0, 3),
                        textcoords="offset points")
    kind = (lambda n: f"phase:{phase_of(n)}") if phase_of else (lambda n: "time")
    for (n, dtype), pts in by_series.items():
        series(canvas, ax, pts, label=f"{n} {dtype}", colour_key=n, dtype=dtype, dtypes=dtypes, kind=kind(n),
               linestyle="none", scale=factor)
    ax.set_xticks([t[0] for t in ticks])
    ax.set_xticklabels([t[1] for t in ticks], fontsize=8, rotation=0)
    ax.set_xlim(min(t[0] for t in ticks) - 0.7, max(t[0] for t in ticks) + 0.7)
    per = "of the phase, per repetition" if phase_of else "per repetition"
    ax.set_ylabel(f"median time {per} ({unit})\nwhiskers: 95 % interval of the median")
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


def rank_axis(ax, ps, label):
    ticks = sorted(set(ps) | {1})
    ticks = ticks if len(ticks) > 1 else [1, 2]
    margin = 0.3 * (ticks[-1] - ticks[0]) / len(ticks)
    ax.set_xlim(ticks[0] - margin, ticks[-1] + margin)
    ax.xaxis.set_major_locator(mt.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(mt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel(label)
    ax.grid(True, alpha=0.3)
    return ticks


def findings_panel(canvas, ax, lines, ideal, ylabel, title, xlabel, model=None):
    """Finding values vs p, a series per key of `lines` {(label, colour_key, dtype, linestyle):
    [(p, finding)]}, with the ideal line `ideal(p)` and its name; `model` {key of lines: [(p, y)]}
    draws the run's model for each series, thin and dotted, through and beyond its points."""
    dtypes = {k[2] for k in lines}
    ps = [p for pts in lines.values() for p, _ in pts]
    for (label, colour_key, dtype, _), pts in (model or {}).items():
        ax.plot([p for p, _ in pts], [y for _, y in pts], color=canvas.colour(colour_key), linestyle=":",
                linewidth=1.2)
        tag(ax.lines[-1], kind="model", series=label, colour_key=colour_key, dtype=dtype)
        ps += [p for p, _ in pts]
    if model:
        canvas.handle("model (α–β–γ, this run)", color="grey", linestyle=":", linewidth=1.2)
    for (label, colour_key, dtype, linestyle), pts in lines.items():
        # Error bars where the finding reports its 95 % interval (efficiencies).
        series(canvas, ax, [(p, f["value"], *(f.get("ci95") or (None, None)), f) for p, f in pts
                            if f.get("value") is not None],
               label=label, colour_key=colour_key, dtype=dtype, dtypes=dtypes, linestyle=linestyle, kind="finding")
    ticks = rank_axis(ax, ps, xlabel)
    name, fn = ideal
    xs = [ticks[0], ticks[-1]]
    ax.plot(xs, [fn(x, ticks[0]) for x in xs], color="black", linestyle="--", linewidth=1)
    canvas.handle(name, color="black", linestyle="--", linewidth=1)
    ax.set_ylim(0, max(ax.get_ylim()[1], 1.15 * max(fn(x, ticks[0]) for x in xs)))
    ax.set_ylabel(ylabel)
    ax.set_title(title if lines else title + "\n(no finding in this run)", fontsize=10)


def rate_points(rows, unit, x_of):
    """[(x, rate, low, high, row)] for the rows with a positive rate (a log axis has no 0)."""
    out = []
    for r in rows:
        rate, lo, hi = rate_of(r, unit)
        if rate > 0:
            out.append((x_of(r), rate, lo, hi, r))
    return out


def y_range(points, extra=()):
    values = [v for p in points for v in (p[1], p[2], p[3]) if v and v > 0] + list(extra)
    return min(values), max(values)
