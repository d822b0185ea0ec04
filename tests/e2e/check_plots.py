#!/usr/bin/env python3
"""Runs `minigpu run QUICKSTART_YAML` into a fresh directory, then `plot.py` on it, and checks
the figures: which ones (every `figure:` that `MINIGPU list` names for an experiment the run
has rows of), that each PNG is a real image (signature, IHDR >= 300 px, > 10 KB, not one flat
colour, its path printed), and, on the matplotlib objects plot.py's figures() returns, that
  ticks:    every axis has >= 2 visible labelled ticks that do not overlap; a log axis labels
            exactly its decades and (spanning at most 3 decades) their 2 and 5 steps, as plain numbers equal to the tick;
  style:    one colour per device/variant, 'o' for float32 and 's' for float64, no two series
            of an axis alike in colour, marker and line style;
  ceilings: each ceiling of run.json that a plotted rate refers to is a line at its value,
            named with its label, and there are none when run.json has none;
  values:   every point is its row's rate or median, or its finding's value, as run.json says
            (nothing recomputed), with bars spanning the median's 95 % interval;
  hollow:   a point (or bar) is hollow exactly when its row or finding is unreliable, and the
            legend says "hollow: unreliable — <reasons>" exactly when one is;
  footer:   the host CPU, cores, GPUs, ranks, Kokkos backends and BLAS library of run.json.
Usage: check_plots.py [LAUNCHER...] MINIGPU QUICKSTART_YAML PLOT_PY
(LAUNCHER: e.g. mpiexec -n 2 --oversubscribe, to run minigpu on several ranks.)"""
import importlib.util
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DTYPE_MARKERS = {"float32": "o", "float64": "s"}
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


class Violation(Exception):
    pass


def ensure_matplotlib():
    """matplotlib with the Agg backend, under Debian's python3 if this one lacks it."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
    from system_python import require
    require("matplotlib", "python3-matplotlib").use("Agg")


def listed_figures(minigpu):
    """experiment -> figure, from the `figure:` line under each experiment of `minigpu list`."""
    out = subprocess.run([minigpu, "list"], capture_output=True, text=True, timeout=60, check=True).stdout
    figures, current = {}, None
    for line in out.splitlines():
        if m := re.match(r"^\s+figure:\s*(\S+)\s*$", line):
            figures[current] = m.group(1)
        elif m := re.match(r"^\s{1,4}(\w+)\s", line):
            current = m.group(1)
    if not figures:
        raise Violation(f"`{minigpu} list` names no figure:\n{out}")
    return figures


def check_png(path):
    """An error message, or None for a valid, non-trivial PNG."""
    import matplotlib.image as mpimg
    if not os.path.isfile(path):
        return "missing"
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR":
        return "not a PNG (bad signature or no IHDR chunk first)"
    width, height = struct.unpack(">II", head[16:24])
    if width < 300 or height < 300:
        return f"too small: {width}x{height} px"
    if (size := os.path.getsize(path)) <= 10 * 1024:
        return f"file only {size} bytes"
    if not mpimg.imread(path).std() > 0:
        return "a single flat colour"
    return None


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def parse_label(text):
    """The number a log tick label shows: '0.02', '500', '20k', '2 MB' -> float (None if not)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kMGT]?)(?:B|/s)?", text.strip())
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)] if m else None


def labelled_ticks(axis):
    lo, hi = sorted(axis.get_view_interval())
    locs = list(axis.get_majorticklocs())
    ticks = axis.get_major_ticks(len(locs))
    pad = 1e-9 * max(abs(lo), abs(hi), 1e-300)
    return [(loc, t.label1) for loc, t in zip(locs, ticks)
            if lo - pad <= loc <= hi + pad and t.label1.get_visible() and t.label1.get_text().strip()]


def check_ticks(fig, renderer):
    count = 0
    for i, ax in enumerate(a for a in fig.axes if a.axison):
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            where = f"panel {i + 1} {name} axis"
            ticks = labelled_ticks(axis)
            if len(ticks) < 2:
                raise Violation(f"{where}: {len(ticks)} labelled tick(s), need at least 2")
            boxes = sorted((label.get_window_extent(renderer) for _, label in ticks), key=lambda b: (b.x0, b.y0))
            for a, b in zip(boxes, boxes[1:]):
                if a.x1 - 1 > b.x0 and a.y1 - 1 > b.y0 and b.y1 - 1 > a.y0 and b.x1 - 1 > a.x0:
                    raise Violation(f"{where}: tick labels overlap")
            if axis.get_scale() == "log":
                lo, hi = sorted(axis.get_view_interval())
                # Up to 3 decades the 2 and 5 steps are labelled too; beyond, they would collide.
                steps = (1, 2, 5) if math.log10(hi / lo) <= 3.01 else (1,)
                want = {round(m * 10.0 ** k, 12) for k in range(-15, 16) for m in steps
                        if lo * (1 - 1e-9) <= m * 10.0 ** k <= hi * (1 + 1e-9)}
                for loc, label in ticks:
                    shown = parse_label(label.get_text())
                    if shown is None or not close(shown, loc, 1e-6):
                        raise Violation(f"{where}: tick at {loc:g} labelled {label.get_text()!r}, not the plain number")
                have = {round(loc, 12) for loc, _ in ticks}
                if missing := sorted(w for w in want if not any(close(w, h) for h in have)):
                    raise Violation(f"{where}: log axis lacks labelled ticks at {missing}")
                if extra := sorted(h for h in have if not any(close(w, h) for w in want)):
                    raise Violation(f"{where}: log axis labels ticks off the steps {steps}: {extra}")
            count += 1
    return count


def tagged(fig, kind):
    pairs = [(ax, a) for ax in fig.axes for a in ax.get_children()] + [(None, t) for t in fig.texts]
    return [(ax, a) for ax, a in pairs if getattr(a, "minigpu", {}).get("kind") == kind]


def legend_texts(fig):
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend()] + list(fig.legends)
    return [t.get_text() for leg in legends for t in leg.get_texts()]


def check_style(fig):
    from matplotlib.colors import to_hex
    points = tagged(fig, "points")
    if not points:
        raise Violation("no data point drawn")
    colours, keys, styles, texts = {}, {}, {}, legend_texts(fig)
    for ax, line in points:
        meta, colour = line.minigpu, to_hex(line.get_color())
        marker = line.get_marker()
        if meta["dtype"] in DTYPE_MARKERS and marker != DTYPE_MARKERS[meta["dtype"]]:
            raise Violation(f"{meta['series']}: marker {marker!r} for {meta['dtype']}, "
                            f"expected {DTYPE_MARKERS[meta['dtype']]!r}")
        if colours.setdefault(meta["colour_key"], colour) != colour:
            raise Violation(f"{meta['colour_key']} drawn in two colours")
        if keys.setdefault(colour, meta["colour_key"]) != meta["colour_key"]:
            raise Violation(f"{meta['colour_key']} and {keys[colour]} share colour {colour}")
        look = (colour, marker, meta["linestyle"])
        if styles.setdefault((id(ax), look), meta["series"]) != meta["series"]:
            raise Violation(f"{meta['series']} and {styles[(id(ax), look)]} look alike: {look}")
        if meta["series"] not in texts:
            raise Violation(f"{meta['series']}: no legend entry")
    return f"{len(keys)} colours, markers {sorted({line.get_marker() for _, line in points})}"


def expected_point(record, source, meta):
    """(y, low, high) run.json reports for a point; low/high None where it reports no spread."""
    if source[0] == "finding":
        f = next(f for f in record["findings"] if f["experiment"] == source[1] and f["name"] == source[2])
        return f["value"], None, None, f
    row = record["results"][source[1]]
    q = meta["quantity"]
    stats = row["seconds"] if q in ("time", "rate") else row["phase_seconds"][q.split(":", 1)[1]]
    m = stats["median"]
    lo, hi = stats["median_ci95"]
    lo, hi = (lo, hi) if 0 < lo <= m <= hi else (m, m)
    if q != "rate":
        return m * meta["scale"], lo * meta["scale"], hi * meta["scale"], row
    flops = meta["unit"] == "GFLOP/s"
    work = row["flops" if flops else "bytes"] / 1e9
    return row["gflops" if flops else "gbps"], work / hi, work / lo, row


def check_values(fig, record):
    checked = 0
    for _, line in tagged(fig, "points"):
        meta, ys = line.minigpu, list(line.get_ydata())
        segments = list(meta["bars"].get_segments()) if meta["bars"] is not None else []
        bars = dict(zip(map(tuple, meta["with_bars"]), segments))
        for source, y in zip(meta["sources"], ys):
            want, lo, hi, item = expected_point(record, source, meta)
            if not close(y, want):
                raise Violation(f"{meta['series']}: point {source} at {y:g}, run.json says {want:g}")
            if lo is not None:
                if tuple(source) not in bars:
                    raise Violation(f"{meta['series']}: point {source} has no error bar")
                seg = sorted(p[1] for p in bars[tuple(source)])
                if not (close(seg[0], lo) and close(seg[-1], hi)):
                    raise Violation(f"{meta['series']}: bar {seg[0]:g}..{seg[-1]:g} at {source}, "
                                    f"the median's 95 % interval gives {lo:g}..{hi:g}")
            reliable = item.get("reliable", True) is not False
            if meta["reliable"] != reliable:
                raise Violation(f"{meta['series']}: {source} drawn {'filled' if meta['reliable'] else 'hollow'}"
                                f" but run.json has reliable={reliable}")
            checked += 1
    return checked


def check_hollow(fig, record):
    from matplotlib.colors import to_hex
    hollow, reasons = 0, []
    for _, line in tagged(fig, "points"):
        face, meta = line.get_markerfacecolor(), line.minigpu
        is_hollow = isinstance(face, str) and face == "none"
        if is_hollow == meta["reliable"] or (not is_hollow and to_hex(face) != to_hex(line.get_color())):
            raise Violation(f"{meta['series']}: reliable={meta['reliable']} but marker face {face!r}")
        if is_hollow:
            hollow += len(meta["sources"])
            for source in meta["sources"]:
                item = expected_point(record, source, meta)[3]
                reasons += [r.split(":", 1)[0].strip() for r in (item.get("unreliable_because") or "").split("; ")]
    for _, bar in tagged(fig, "bar"):
        row = record["results"][bar.minigpu["source"][1]]
        reliable = row.get("reliable", True) is not False
        if bar.get_fill() != reliable or (not reliable and not bar.get_hatch()):
            raise Violation(f"bar of {row['case']}: reliable={reliable} but fill={bar.get_fill()}, "
                            f"hatch={bar.get_hatch()!r}")
    notes = [" ".join(t.split()) for t in legend_texts(fig) if t.startswith("hollow: unreliable")]
    if hollow and not notes:
        raise Violation(f"{hollow} hollow point(s) but no 'hollow: unreliable — …' legend entry")
    if not hollow and notes:
        raise Violation(f"legend explains hollow points but none is drawn: {notes[0]!r}")
    for reason in filter(None, reasons):
        if " ".join(reason.split())[:12] not in notes[0]:
            raise Violation(f"the legend's unreliable note {notes[0]!r} lacks the reason {reason!r}")
    return hollow


def check_ceilings(fig, record):
    ceilings = {c["name"]: c for c in record.get("ceilings") or []}
    lines = tagged(fig, "ceiling")
    if not ceilings and lines:
        raise Violation("a ceiling is drawn but run.json has none")
    for ax in fig.axes:
        rates = [line for a, line in tagged(fig, "points") if a is ax and line.minigpu["quantity"] == "rate"]
        want = {n for line in rates for s in line.minigpu["sources"]
                if (n := (record["results"][s[1]].get("ceiling") or {}).get("name")) in ceilings
                and ceilings[n].get("unit", line.minigpu["unit"]) == line.minigpu["unit"]}
        have = {line.minigpu["name"]: line for a, line in lines if a is ax}
        if set(have) != want:
            raise Violation(f"ceilings drawn {sorted(have)}, the plotted rows refer to {sorted(want)}")
        for name, line in have.items():
            c = ceilings[name]
            if not all(close(y, c["value"]) for y in line.get_ydata()):
                raise Violation(f"ceiling {name} drawn at {line.get_ydata()}, run.json says {c['value']}")
            if c.get("label", name) not in line.minigpu["label"] or line.minigpu["label"] not in legend_texts(fig):
                raise Violation(f"ceiling {name} is not named {c.get('label')!r} in the legend")
            lo, hi = ax.get_ylim()
            if not lo <= c["value"] <= hi:
                raise Violation(f"ceiling {name} at {c['value']} lies outside the y range {lo:g}..{hi:g}")
    return len(lines)


def check_footer(fig, record):
    texts = [t.get_text() for _, t in tagged(fig, "footer")]
    if not texts:
        raise Violation("no hardware footer")
    host, mpi = record.get("host", {}), record.get("mpi", {})
    facts = [host.get("cpu"), f"{host.get('logical_cores')} cores", f"MPI ranks: {mpi.get('size')}",
             (record.get("blas") or {}).get("library")] + record.get("devices", {}).get("gpus", []) + \
        record.get("kokkos", {}).get("backends", [])
    if missing := [f for f in facts if f and str(f) not in texts[0]]:
        raise Violation(f"footer {texts[0]!r} lacks {missing}")


def check_inside(fig, renderer):
    """Every piece of text lies on the canvas: a finding that ran off the left edge (a long
    subtitle with its reliability note) is a defect, not a style."""
    from matplotlib.text import Text
    canvas, outside = fig.bbox, []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip():
            continue
        box = text.get_window_extent(renderer)
        if box.x0 < canvas.x0 - 1 or box.x1 > canvas.x1 + 1 or box.y0 < canvas.y0 - 1 or box.y1 > canvas.y1 + 1:
            outside.append(f"{text.get_text()[:60]!r} at x {box.x0:.0f}..{box.x1:.0f}, y {box.y0:.0f}..{box.y1:.0f} "
                           f"(canvas {canvas.width:.0f} x {canvas.height:.0f})")
    if outside:
        raise Violation("text outside the canvas: " + "; ".join(outside))


def check_figure(fig, record):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    check_inside(fig, renderer)
    axes = check_ticks(fig, renderer)
    style = check_style(fig)
    points = check_values(fig, record)
    hollow = check_hollow(fig, record)
    ceilings = check_ceilings(fig, record)
    check_footer(fig, record)
    return (f"{axes} x/y axes with labelled ticks; {style}; {points} points = run.json values with their "
            f"95 % bars; {hollow} hollow (unreliable); {ceilings} ceiling line(s); hardware footer; all text "
            "on the canvas")


def load_plot_module(plot_py):
    spec = importlib.util.spec_from_file_location("minigpu_plot", plot_py)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_run(launcher, minigpu, quickstart, plot_py, tmp):
    listed = listed_figures(minigpu)
    out_dir = os.path.join(tmp, "results")
    run = subprocess.run(launcher + [minigpu, "run", quickstart, "--output-dir", out_dir], capture_output=True,
                         text=True, timeout=900, env={**os.environ, **MPI_ENV})
    if run.returncode != 0:
        raise Violation(f"{run.stdout[-3000:]}\n{run.stderr[-3000:]}\nminigpu run: exit code {run.returncode}")
    run_dir = os.path.join(out_dir, os.listdir(out_dir)[0])
    with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
        record = json.load(f)
    present = {r["experiment"] for r in record["results"]}
    for e in record.get("experiments", []):
        if e["name"] in listed and e.get("figure") != listed[e["name"]]:
            raise Violation(f"run.json names {e['name']}'s figure {e.get('figure')!r}, "
                            f"minigpu list {listed[e['name']]!r}")
    expected = sorted(listed[e] for e in present if e in listed)
    if not expected:
        raise Violation(f"no plottable experiment in the run ({sorted(present)})")
    plot = subprocess.run([sys.executable, plot_py, run_dir], capture_output=True, text=True, timeout=600)
    print(plot.stdout, plot.stderr, sep="", end="")
    if plot.returncode != 0:
        raise Violation(f"plot.py: exit code {plot.returncode}")
    printed = {os.path.basename(line.strip()) for line in plot.stdout.splitlines()}
    for name in expected:
        if problem := check_png(os.path.join(run_dir, name)):
            raise Violation(f"{name}: {problem}")
        if name not in printed:
            raise Violation(f"{name}: written but plot.py did not print its path")
    empty = subprocess.run([sys.executable, plot_py, tmp], capture_output=True, text=True)
    if empty.returncode != 2 or len(empty.stderr.strip().splitlines()) != 1:
        raise Violation(f"plot.py on a directory without run.json: exit {empty.returncode}, expected 2 with a "
                        f"one-line error (stderr: {empty.stderr.strip()[-300:]})")
    # A glob over results/ can match a run still starting: skipped with a note beside a finished
    # run, refused alone.
    starting = os.path.join(tmp, "quickstart-20261129T000000Z.partial-Ab12Cd")
    os.makedirs(starting, exist_ok=True)
    both = subprocess.run([sys.executable, plot_py, run_dir, starting], capture_output=True, text=True, timeout=600)
    if both.returncode != 0 or f"skipped {starting}" not in both.stderr:
        raise Violation(f"plot.py on a finished run and a starting one: exit {both.returncode}, expected 0 with a "
                        f"note (stderr: {both.stderr.strip()[-300:]})")
    alone = subprocess.run([sys.executable, plot_py, starting], capture_output=True, text=True)
    if alone.returncode != 2 or "no run.json yet" not in alone.stderr:
        raise Violation(f"plot.py on a starting run alone: exit {alone.returncode}, expected 2 "
                        f"(stderr: {alone.stderr.strip()[-300:]})")
    figures = load_plot_module(plot_py).figures(run_dir)
    if sorted(figures) != expected:
        raise Violation(f"figures() gave {sorted(figures)}, minigpu list and the run expect {expected}")
    for name in expected:
        try:
            print(f"{name}: {check_figure(figures[name], record)}", flush=True)
        except Violation as v:
            raise Violation(f"{name}: {v}") from None
        finally:
            figures[name].clf()
    check_long_findings_stay_on_canvas(plot_py, run_dir, record, tmp)
    return expected


def check_long_findings_stay_on_canvas(plot_py, run_dir, record, tmp):
    """The same run with every finding unreliable for a long reason (a quickstart's lazy
    subtitle once ran off the left edge this way): every figure keeps its text on the canvas;
    and check_inside itself fails on a title drawn wider than its figure."""
    import shutil
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(4, 3))
    fig.suptitle("unfenced_over_fenced_float32 = 0.996x (unreliable: " + "the two medians' intervals overlap; " * 6)
    fig.canvas.draw()
    try:
        check_inside(fig, fig.canvas.get_renderer())
        raise Violation("check_inside passed a title wider than its figure")
    except Violation as v:
        if "outside the canvas" not in str(v):
            raise
    finally:
        plt.close(fig)
    noted = os.path.join(tmp, "long_notes")
    shutil.copytree(run_dir, noted)
    for f in record.get("findings", []):
        f["reliable"], f["unreliable_because"] = False, "the two medians' 95 % intervals overlap; " * 3
    with open(os.path.join(noted, "run.json"), "w", encoding="utf-8") as f:
        json.dump(record, f)
    figures = load_plot_module(plot_py).figures(noted)
    for name, figure in figures.items():
        figure.canvas.draw()
        try:
            check_inside(figure, figure.canvas.get_renderer())
        except Violation as v:
            raise Violation(f"{name} with long reliability notes: {v}") from None
        finally:
            figure.clf()
    print(f"{len(figures)} figures keep long reliability notes on the canvas", flush=True)


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    ensure_matplotlib()
    *launcher, minigpu, quickstart, plot_py = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            expected = check_run(launcher, minigpu, quickstart, plot_py, tmp)
        except Violation as v:
            print(f"FAIL: {v}")
            return 1
    print(f"{len(expected)} figures OK: {', '.join(expected)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
