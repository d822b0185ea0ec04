"""What every minigpu figure shares: the run.json reader, the style rules (a colour per
device/variant, a marker per dtype, hollow = unreliable), 1-2-5 log ticks, error bars from the
reported 95 % interval of the median, ceiling lines, the legend column and the hardware footer.

Every drawn data point, ceiling and footer carries a `minigpu` attribute (a dict) naming the
run.json row or finding it shows, so tests/e2e/check_plots.py can hold the figure objects
against the record instead of trusting the pixels."""
import math
import textwrap

DTYPE_MARKERS = {"float32": "o", "float64": "s"}
SPARE_MARKERS = "^Dv<>p"
# tab10, then further hues distinct enough to tell apart in a legend.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf", "#000080", "#808000", "#008080", "#800000", "#ff00ff", "#00c000", "#404040", "#c08000"]
CEILING_STYLES = [(0, (6, 2)), (0, (2, 2)), (0, (6, 2, 1, 2)), (0, (1, 1))]
STEPS = (1, 2, 5)
NO_VALUE = ("", "-", None)


class Run:
    """run.json, read once: results, findings and ceilings by experiment."""

    def __init__(self, record):
        self.record = record
        self.rows = record.get("results", [])
        for i, r in enumerate(self.rows):
            r.setdefault("_index", i)
        self.ceilings = {c["name"]: c for c in record.get("ceilings") or [] if c.get("name")}

    def rows_of(self, experiment):
        return [r for r in self.rows if r.get("experiment") == experiment]

    def findings_of(self, experiment):
        return {f["name"]: f for f in self.record.get("findings", []) if f.get("experiment") == experiment}


def param(row, key, default=""):
    return row.get("params", {}).get(key, default)


def is_reliable(item):
    """Rows and findings of older runs have no flag: they count as reliable."""
    return item.get("reliable", True) is not False


def short_reason(reason):
    """The kind of doubt, without its numbers: what comes before the first ':'."""
    return reason.split(":", 1)[0].strip()


def reasons_of(item):
    return [short_reason(p) for p in (item.get("unreliable_because") or "unreliable").split("; ") if p.strip()]


def plain(v, unit=""):
    """A tick label as a plain number: 0.002, 50, 5000, 20k, 1M (never 10^x or 1e+06)."""
    if v >= 1e4 or (unit and v >= 1e3):
        for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
            if v >= factor * 0.999999:
                return f"{v / factor:g}{' ' if unit else ''}{prefix}{unit}"
    decimals = max(0, -math.floor(math.log10(v) + 1e-9)) if v > 0 else 0
    return f"{v:.{decimals}f}" + (f" {unit}" if unit else "")


def steps_between(lo, hi, steps=STEPS):
    """The 1-2-5 values (or `steps`) of every decade that lie in [lo, hi]."""
    out, k = [], math.floor(math.log10(lo)) - 1
    while 10.0 ** k <= hi * 1.000001:
        out += [m * 10.0 ** k for m in steps if lo * 0.999999 <= m * 10.0 ** k <= hi * 1.000001]
        k += 1
    return out


def labelled_steps(lo, hi):
    """1-2-5 labels up to 3 decades; beyond, decades only (the 2 and 5 would collide)."""
    return STEPS if math.log10(hi / lo) <= 3.01 else (1,)


def step_below(v):
    return max(s for s in steps_between(v / 10.01, v))


def step_above(v):
    return min(s for s in steps_between(v, v * 10.01))


def log_axis(ax, which, lo, hi, unit=""):
    """Log scale from the 1-2-5 step below `lo` to the one above `hi` (so at least two labelled
    ticks), every decade and (up to 3 decades) its 2 and 5 steps labelled, the other steps as
    unlabelled minors."""
    import matplotlib.ticker as mt
    lo, hi = step_below(lo / 1.12), step_above(hi * 1.12)
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    (ax.set_xlim if which == "x" else ax.set_ylim)(lo, hi)
    labelled = labelled_steps(lo, hi)
    axis.set_major_locator(mt.FixedLocator(steps_between(lo, hi, labelled)))
    axis.set_major_formatter(mt.FuncFormatter(lambda v, _: plain(v, unit)))
    minor = tuple(m for m in range(2, 10) if m not in labelled)
    axis.set_minor_locator(mt.LogLocator(base=10, subs=minor, numticks=100))
    axis.set_minor_formatter(mt.NullFormatter())
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)


def time_unit(seconds):
    """(factor, unit) that puts the largest of `seconds` between 1 and 1000."""
    top = max([s for s in seconds if s] or [1])
    return next(((f, u) for f, u in ((1, "s"), (1e3, "ms"), (1e6, "µs")) if top * f >= 1), (1e9, "ns"))


def median_ci(stats):
    """(median, ci_low, ci_high) of a stats object; an interval that does not hold the median
    or reaches 0 (too few repetitions to have one) collapses onto it."""
    m = stats.get("median", 0.0)
    lo, hi = (stats.get("median_ci95") or [m, m])[:2]
    return (m, lo, hi) if 0 < lo <= m <= hi else (m, m, m)


def rate_of(row, unit):
    """(rate, low, high) in `unit` (GB/s or GFLOP/s): the work over the median and over the
    ends of the median's interval, all three here. The same work divided by ordered times is
    ordered, so low <= rate <= high holds exactly; the run's own rounded rate beside bars
    recomputed from the interval once put a bar end an ulp on the wrong side (matplotlib:
    "'yerr' must not contain negative values")."""
    work = (row.get("flops", 0) if unit == "GFLOP/s" else row.get("bytes", 0)) / 1e9
    m, lo, hi = median_ci(row["seconds"])
    if work <= 0 or m <= 0:
        rate = row.get("gflops" if unit == "GFLOP/s" else "gbps", 0.0)
        return rate, rate, rate
    return work / m, work / hi, work / lo


def bar_lengths(points):
    """matplotlib's yerr for [(x, y, low, high, item)]: [below, above]. A finding's interval
    computed apart from its value may miss it by rounding; more than that is a defect."""
    below, above = [], []
    for _, y, low, high, _ in points:
        for d, out in ((y - low, below), (high - y, above)):
            if d < 0 and -d > 1e-9 * max(abs(y), 1e-300):
                raise ValueError(f"interval [{low}, {high}] does not hold {y}")
            out.append(max(d, 0.0))
    return [below, above]


def tag(artist, **meta):
    artist.minigpu = meta
    return artist


class Canvas:
    """A figure: `ncols` panels, a legend column right of them, and the hardware footer."""

    def __init__(self, plt, run, title, ncols=1, width=7.0, legend_width=3.6, height=5.0):
        self.run = run
        self.fig = plt.figure(figsize=(width * ncols + legend_width, height))
        grid = self.fig.add_gridspec(1, ncols + 1, width_ratios=[width] * ncols + [legend_width])
        self.axes = [self.fig.add_subplot(grid[0, i]) for i in range(ncols)]
        self.legend_ax = self.fig.add_subplot(grid[0, ncols])
        self.legend_ax.set_axis_off()
        # 12-point bold takes about 0.12 inch a character: wrap to the figure's width.
        self.fig.suptitle(textwrap.fill(title, int(self.fig.get_figwidth() / 0.12)), fontsize=12,
                          fontweight="bold")
        self.colours, self.handles, self.reasons = {}, {}, []

    def colour(self, key):
        if key not in self.colours:
            self.colours[key] = PALETTE[len(self.colours) % len(PALETTE)]
        return self.colours[key]

    def handle(self, label, **style):
        """A legend entry, once per label, drawn as a line/marker with `style`."""
        from matplotlib.lines import Line2D
        if label not in self.handles:
            self.handles[label] = Line2D([], [], **style)

    def patch(self, label, **style):
        from matplotlib.patches import Patch
        if label not in self.handles:
            self.handles[label] = Patch(**style)

    def unreliable(self, item):
        for reason in reasons_of(item):
            if reason not in self.reasons:
                self.reasons.append(reason)

    def wrap_titles(self):
        """Each panel title's lines wrapped to its panel's width (a character about 0.6 of the font
        size): a finding carrying its reliability note once ran past the figure's left edge."""
        for ax in self.axes:
            title = ax.title
            if not title.get_text():
                continue
            width_pt = ax.get_position().width * self.fig.get_figwidth() * 72
            chars = max(20, int(width_pt / (0.6 * title.get_fontsize())))
            title.set_text("\n".join(textwrap.fill(line, chars, subsequent_indent="    ") if len(line) > chars
                                      else line for line in title.get_text().split("\n")))

    def finish(self, legend_title=None):
        self.wrap_titles()
        if self.reasons:
            label = "hollow: unreliable — " + "; ".join(self.reasons)
            self.handle(textwrap.fill(label, 44, subsequent_indent="  "), linestyle="none", marker="o",
                        markerfacecolor="none", markeredgecolor="dimgray", color="dimgray")
        if self.handles:
            self.legend_ax.legend(list(self.handles.values()), list(self.handles), loc="upper left", fontsize=8,
                                  title=legend_title, title_fontsize=8, frameon=False, borderaxespad=0)
        tag(self.fig.text(0.5, 0.01, footer(self.run.record), ha="center", va="bottom", fontsize=7.5,
                          color="dimgray"), kind="footer")
        self.fig.tight_layout(rect=(0, 0.07, 1, 0.95))
        return self.fig


def footer(record):
    """The hardware and software the numbers come from, in two lines."""
    host, kokkos, mpi, blas = (record.get(k) or {} for k in ("host", "kokkos", "mpi", "blas"))
    gpus = (record.get("devices") or {}).get("gpus") or ["none"]
    threads = (record.get("threads") or {}).get("blas")
    return (f"host: {host.get('cpu', '?')} ({host.get('hostname', '?')}, {host.get('logical_cores', '?')} cores)"
            f" | GPUs: {', '.join(gpus)} | MPI ranks: {mpi.get('size', '?')}"
            f" | Kokkos {kokkos.get('version', '?')} [{', '.join(kokkos.get('backends', []))}]\n"
            f"BLAS: {blas.get('library', '?')}" + (f" ({threads} thread{'s' * (threads != 1)})" if threads else "")
            + f" | minigpu {(record.get('minigpu') or {}).get('version', '?')}"
            f" | run started {record.get('started', '?')}")


def marker_of(dtype, dtypes):
    """float32 'o', float64 's', any other dtype a spare marker of its own."""
    others = [d for d in sorted(dtypes) if d not in DTYPE_MARKERS]
    return DTYPE_MARKERS.get(dtype) or SPARE_MARKERS[others.index(dtype) % len(SPARE_MARKERS)]


def series(canvas, ax, points, *, label, colour_key, dtype, dtypes, linestyle="-", kind, scale=1.0, unit=None):
    """One series: a line through `points` [(x, y, low, high, item)], then its markers and bars,
    filled where the item (row or finding) is reliable, hollow where it is not. low/high None:
    the item reports no spread, so no bar."""
    points = sorted(points, key=lambda p: p[0])
    colour, marker = canvas.colour(colour_key), marker_of(dtype, dtypes)
    if len(points) > 1 and linestyle != "none":
        ax.plot([p[0] for p in points], [p[1] for p in points], color=colour, linestyle=linestyle, linewidth=1.4)
    for reliable in (True, False):
        group = [p for p in points if is_reliable(p[4]) == reliable]
        if not group:
            continue
        spread = [p for p in group if p[2] is not None]
        bars = None
        if spread:
            bars = ax.errorbar([p[0] for p in spread], [p[1] for p in spread], fmt="none", ecolor=colour,
                               elinewidth=1.1, capsize=3, yerr=bar_lengths(spread))
        (dots,) = ax.plot([p[0] for p in group], [p[1] for p in group], linestyle="none", marker=marker,
                          markersize=6.5, color=colour, markeredgecolor=colour,
                          markerfacecolor=colour if reliable else "none", markeredgewidth=1.4, zorder=3)
        tag(dots, kind="points", quantity=kind, scale=scale, unit=unit, series=label, colour_key=colour_key,
            dtype=dtype, linestyle=linestyle,
            reliable=reliable, sources=[source_id(p[4]) for p in group],
            bars=(bars.lines[2][0] if bars else None), with_bars=[source_id(p[4]) for p in spread])
        if not reliable:
            for p in group:
                canvas.unreliable(p[4])
    canvas.handle(label, color=colour, linestyle=linestyle, marker=marker, markersize=6)


def source_id(item):
    """What check_plots.py looks the point up by: a row's index or a finding's name."""
    return ["row", item["_index"]] if "_index" in item else ["finding", item["experiment"], item["name"]]


def ceilings(canvas, ax, rows, unit):
    """Each ceiling the rows refer to, as a labelled horizontal line; (lowest, highest) value."""
    names = sorted({(r.get("ceiling") or {}).get("name") for r in rows} - {None})
    drawn = [canvas.run.ceilings[n] for n in names if n in canvas.run.ceilings
             and canvas.run.ceilings[n].get("unit", unit) == unit and (canvas.run.ceilings[n].get("value") or 0) > 0]
    for i, c in enumerate(drawn):
        text = f"ceiling: {c.get('label', c['name'])} {c['value']:.3g} {c.get('unit', unit)}"
        tag(ax.axhline(c["value"], color="black", linewidth=1.2, linestyle=CEILING_STYLES[i % 4], zorder=2),
            kind="ceiling", name=c["name"], label=text)
        ax.annotate(text, (0.01, c["value"]), xycoords=("axes fraction", "data"), xytext=(0, 2),
                    textcoords="offset points", fontsize=7.5, va="bottom")
        canvas.handle(text, color="black", linewidth=1.2, linestyle=CEILING_STYLES[i % 4])
    return [c["value"] for c in drawn]


def finding_text(f, fmt="{:.3g}"):
    """'name = value unit', or the reason it has no value, and any doubt about it."""
    unit = {"x": "×", "%": " %"}.get(f.get("unit", ""), " " + f.get("unit", ""))
    text = f"{f['name']} = " + (fmt.format(f["value"]) + unit if f.get("value") is not None else "n/a")
    if not is_reliable(f):
        text += f" (unreliable: {'; '.join(reasons_of(f))})"
    return text
