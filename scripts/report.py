#!/usr/bin/env python3
"""Writes RUN_DIR/report.html: one self-contained page to share a minigpu run.

Usage: report.py RUN_DIR [-o FILE]
The page holds the figures scripts/plot.py draws for the run (PNG data URIs), the findings
with their intervals, the ceilings, the rows with their spread and reliability flags, the rank
map, the provenance and, where the run has one, matmul_scaling's cost model. It loads nothing
from elsewhere: a Content-Security-Policy forbids it, so a browser reports any attempt. Every
text from run.json is escaped. Prints the path written. Exit codes: 0 written, 2 usage error
(no run.json, or one that is not JSON), 3 the figures or the page could not be written."""
import argparse
import base64
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import plot  # noqa: E402  (beside this script)
from reportlib import sections  # noqa: E402
from reportlib.markup import Markup, esc, join, tag  # noqa: E402

POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 110em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .6em 0; font-size: 12.5px; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } caption { text-align: left; font-style: italic; }
tr.unreliable td { background: #fff8e0; } tr.failed td { background: #fde4e4; }
.flag { color: #8a5a00; } .bad { color: #b00020; font-weight: bold; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 1em; } dt { font-weight: bold; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
nav a { margin-right: 1em; }
"""
# A figure that did not decode is said on the page and in the console (a test's browser
# listens there); each image says whether it loaded, for the test to read back.
CHECK_IMAGES = """
window.addEventListener("load", function () {
  var broken = 0;
  Array.prototype.forEach.call(document.images, function (img) {
    var ok = img.complete && img.naturalWidth > 0;
    img.setAttribute("data-loaded", ok ? "yes" : "no");
    if (!ok) {
      broken += 1;
      var note = document.createElement("p");
      note.className = "bad";
      note.textContent = "this figure did not load";
      img.parentNode.insertBefore(note, img.nextSibling);
      console.error("figure did not load: " + img.alt);
    }
  });
  document.body.setAttribute("data-figures-broken", String(broken));
});
"""


class UsageError(Exception):
    pass


def load_record(run_dir):
    path = os.path.join(run_dir, "run.json")
    if not os.path.isfile(path):
        raise UsageError(f"{run_dir}: no run.json (expected a minigpu run directory)")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (ValueError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: not JSON: {e}") from e


def embedded_figures(run_dir, record):
    """<figure>s with plot.py's PNGs as data URIs, in run.json's experiment order."""
    plt = plot.import_pyplot()
    described = {e.get("figure"): e for e in record.get("experiments", []) if e.get("figure")}
    out = []
    for name, fig in plot.figures(run_dir, plt).items():
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=plot.DPI)
        plt.close(fig)
        data = base64.b64encode(buffer.getvalue()).decode("ascii")
        e = described.get(name, {})
        caption = f"{name}: {e.get('description', '')}" if e else name
        out.append(tag("figure", join([Markup(f'<img src="data:image/png;base64,{data}" alt="{esc(name)}">'),
                                       tag("figcaption", caption)])))
    return join([tag("h2", "Figures", id="figures")] + (out or [tag("p", "no experiment of this run has a figure")]))


def page(run_dir, record):
    name = os.path.basename(os.path.normpath(os.path.abspath(run_dir)))
    nav = tag("nav", join(tag("a", label, href=f"#{anchor}") for anchor, label in (
        ("findings", "findings"), ("figures", "figures"), ("results", "results"), ("model", "model"),
        ("ceilings", "ceilings"), ("ranks", "rank map"), ("provenance", "provenance"))
        if anchor != "model" or record.get("scaling_model")))
    body = join([sections.summary(record, name), nav, sections.findings(record), embedded_figures(run_dir, record),
                 sections.results(record), sections.model(record), sections.ceilings(record),
                 sections.rank_map(record), sections.provenance(record), tag("script", Markup(CHECK_IMAGES))])
    head = join([Markup('<meta charset="utf-8">'),
                 Markup(f'<meta http-equiv="Content-Security-Policy" content="{esc(POLICY)}">'),
                 Markup('<meta name="viewport" content="width=device-width, initial-scale=1">'),
                 tag("title", f"miniGPU report: {name}"), tag("style", Markup(STYLE))])
    return f'<!DOCTYPE html>\n<html lang="en">\n<head>{head}</head>\n<body>{body}</body>\n</html>\n'


def main(argv):
    parser = argparse.ArgumentParser(prog="report.py", description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", help="a minigpu run directory (run.json, results.csv)")
    parser.add_argument("-o", "--output", help="where to write the page (default RUN_DIR/report.html)")
    args = parser.parse_args(argv)
    try:
        record = load_record(args.run_dir)
        text = page(args.run_dir, record)
    except (UsageError, plot.UsageError) as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    out = args.output or os.path.join(args.run_dir, "report.html")
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print(f"report.py: cannot write {out}: {e.strerror}", file=sys.stderr)
        return 3
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(plot.main_until_interrupted(main, sys.argv[1:]))
