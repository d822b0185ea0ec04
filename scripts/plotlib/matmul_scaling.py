"""matmul_scaling: speedup, efficiency and time per phase vs ranks. Speedups, efficiencies and comm
shares are the run's findings as they stand; a value with no finding is left out, never worked out here."""
import re
from collections import defaultdict

from .common import Canvas, log_axis, median_ci, param, series, time_unit
from .panels import findings_panel, rank_axis


SCALING = re.compile(r"^(speedup|efficiency|comm_fraction)_([a-z_]+?)_(float32|float64)_p(\d+)(?:_entry(\d+))?$")
LINESTYLES = ["-", "--", ":", "-."]


def scaling_lines(run, rows):
    """{kind: {(label, colour_key, dtype, linestyle): [(p, finding)]}} from the findings' names."""
    parsed = []
    for name, f in run.findings_of("matmul_scaling").items():
        if m := SCALING.match(name):
            kind, decomposition, dtype, p, entry = m.groups()
            parsed.append((kind, decomposition, dtype, int(p), int(entry or 1), f))
    modes = {}  # (decomposition, dtype, entry) -> strong/weak, as the efficiency note says
    for kind, d, t, _, e, f in parsed:
        if kind == "efficiency":
            modes[(d, t, e)] = f.get("note", "").split(":", 1)[0]
    out = defaultdict(lambda: defaultdict(list))
    for kind, d, t, p, e, f in sorted(parsed, key=lambda x: x[:5]):
        mode = modes.get((d, t, e), "")
        label = f"{d} {t} {mode}".strip() + (f" (entry {e})" if e > 1 else "")
        out[kind][(label, d, t, LINESTYLES[(e - 1) % 4])].append((p, f))
    return out, modes


def model_efficiencies(run, efficiency_lines, modes):
    """{series key: [(p, model efficiency %)]} from run.json's scaling_model curves, relative to
    the baseline p its efficiency findings name, up to 4x its largest p (at least 8)."""
    curves = (run.record.get("scaling_model") or {}).get("curves") or {}
    out = {}
    for key, pts in efficiency_lines.items():
        _, decomposition, dtype, _ = key
        curve = {c["p"]: c["model_s"] for c in curves.get(f"{decomposition}_{dtype}", [])}
        measured = [p for p, _ in pts]
        if not curve or not measured:
            continue
        weak = modes.get((decomposition, dtype, 1)) == "weak"
        baseline = re.search(r"t\(p=(\d+)", pts[0][1].get("note", ""))  # the efficiency's reference p
        p1 = int(baseline.group(1)) if baseline else None
        reach = max(8, 4 * max(measured))
        if p1 not in curve:
            continue
        out[key] = [(p, 100 * curve[p1] / curve[p] * (1 if weak else p1 / p))
                    for p in sorted(curve) if p1 <= p <= reach and curve[p] > 0]
    return out


def draw(plt, run, rows):
    paths = ", ".join(sorted({param(r, "comm_path") for r in rows}))
    canvas = Canvas(plt, run, f"matmul_scaling — distributed C = A·B over MPI ranks (comm path: {paths})",
                    ncols=3, width=4.6, height=5.6)
    ax_s, ax_e, ax_t = canvas.axes
    lines, modes = scaling_lines(run, rows)
    ranks = "MPI ranks p"
    findings_panel(canvas, ax_s, lines["speedup"], ("ideal speedup p/p₁", lambda p, p1: p / p1),
                   "speedup (finding)", "speedup: t(p₁)/t(p)", ranks)
    findings_panel(canvas, ax_e, lines["efficiency"], ("ideal efficiency 100 %", lambda p, p1: 100.0),
                   "parallel efficiency (%, finding)", "efficiency", ranks,
                   model=model_efficiencies(run, lines["efficiency"], modes))
    phase_panel(canvas, ax_t, rows, lines["comm_fraction"], modes)
    return canvas.finish("decomposition dtype mode")


def algorithm(row):
    """The row's name in findings: SUMMA rows that wait for each panel are summa_blocking."""
    d = param(row, "decomposition")
    return d + "_blocking" if d == "summa" and param(row, "overlap") == "false" else d


def phase_panel(canvas, ax, rows, comm_lines, modes):
    """Median time per phase (compute, comm) vs p with its 95 % interval; the comm share from
    its finding written beside the comm point."""
    stats = [s for r in rows for s in (r.get("phase_seconds") or {}).values()]
    factor, unit = time_unit([median_ci(s)[2] for s in stats])
    by, dtypes, phases = defaultdict(list), {r["dtype"] for r in rows}, set()
    for r in rows:
        for phase, s in (r.get("phase_seconds") or {}).items():
            m, lo, hi = (factor * v for v in median_ci(s))
            if m > 0:
                phases.add(phase)
                key = (algorithm(r), r["dtype"], param(r, "mode"), phase)
                by[key].append((int(param(r, "ranks") or 0), m, lo, hi, r))
    styles = {}
    for (d, t, mode, phase), pts in sorted(by.items()):
        style = styles.setdefault((mode, phase), LINESTYLES[len(styles) % 4])
        series(canvas, ax, pts, label=f"{d} {t} {mode} {phase}", colour_key=d, dtype=t, dtypes=dtypes,
               linestyle=style, kind=f"phase:{phase}", scale=factor)
    shares = {(label.split(" ")[0], label.split(" ")[1], p): f for (label, *_), pts in comm_lines.items()
              for p, f in pts if f.get("value") is not None and "entry" not in label}
    for (d, t, mode, phase), pts in by.items():
        for p, m, *_ in pts if phase == "comm" else []:
            if f := shares.get((d, t, p)):
                ax.annotate(f"{f['value']:.2g} %", (p, m), xytext=(4, -3), textcoords="offset points",
                            fontsize=7, va="top")
    values = [v for pts in by.values() for p in pts for v in p[1:4]]
    if values:
        log_axis(ax, "y", min(values), max(values))
    rank_axis(ax, [p[0] for pts in by.values() for p in pts], "MPI ranks p")
    ax.set_ylabel(f"median time per phase ({unit}, slowest rank)\nbars: 95 % interval of the median")
    ax.set_title("time per phase; % = comm share (finding)", fontsize=10)
