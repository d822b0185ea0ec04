#!/usr/bin/env python3
"""`minigpu report` end to end, read by a real headless Chromium.

Runs `minigpu run INPUT` (under LAUNCHER when given), then `minigpu report` on it, and checks
  page:     HTML5 whose every element closes, one doctype, lang, charset and title; nothing
            loaded from elsewhere (every src a PNG data URI that decodes, every href an anchor
            on the page, no <link>, no url()), one <img> per figure the run names and has rows for;
  content:  the tables say what run.json says: every finding (value, 95 % interval, flag; n/a
            where it has no value and no flag, never ok), every row (median, flag, verified; a
            share above 100 % with its reason in the cell), every rank of the rank map, and the
            model's rows (measured median, model time, model error), each read back from the page
            and compared;
  browser:  no console error, exception or browser error (a Content-Security-Policy refusal is
            one), every image decoded (naturalWidth > 0), and screenshots of the page and of each
            figure that are not blank (more than a few per cent of pixels not white);
  escaping: a copy of the run in a directory named with < & > ' and " whose run.json carries
            markup and a script in its texts (a note, a case, a share's reason): shown literally,
            nothing injected, no console error; a share of 99.97 % is not shown as 100 %;
  controls: the browser check rejects the report with one figure's bytes broken (with and
            without the page's own image check), a blank page and a page asking for a stylesheet
            elsewhere: a check that cannot fail proves nothing;
  usage:    a directory without run.json exits 2 with one line naming it.
Writes report_screenshot.png into the working directory. Usage: check_report.py [LAUNCHER...] MINIGPU INPUT"""
import base64
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from headless_browser import Browser, BrowserError  # noqa: E402
from report_page import parse_page, structure_problems, table_problems  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from system_python import require  # noqa: E402  (Debian's python3-* packages, one rule for all)
HOSTILE_NOTE = '<img src=x onerror="console.error(1)"><script>console.error("injected")</script> & "q"'
HOSTILE_CASE = "a</td><td>b &amp; c"
HOSTILE_REASON = "data in <b>L2</b> & \"the ceiling's\" beyond it"


def non_white(png):
    """The share of pixels that are not (nearly) white."""
    from matplotlib import image
    pixels = image.imread(io.BytesIO(png), format="png")[..., :3]
    return float((pixels < 0.94).any(axis=-1).mean())


def browser_problems(page, figures):
    problems = list(page.errors)
    if len(page.images) != figures:
        problems.append(f"{len(page.images)} images on the page, {figures} figures in the run")
    for img in page.images:
        if not img["complete"] or img["naturalWidth"] == 0:
            problems.append(f"figure {img['alt']} did not load (naturalWidth {img['naturalWidth']})")
        elif img.get("loaded") != "yes":
            problems.append(f"figure {img['alt']} decoded, but the page's own check did not mark it loaded")
    if page.state.get("broken") not in ("0", None) or (page.state.get("broken") is None and figures):
        problems.append(f"the page counts {page.state.get('broken')} broken figures")
    if non_white(page.screenshot) < 0.02:
        problems.append(f"the screenshot is blank ({non_white(page.screenshot):.2%} not white)")
    for img, shot in zip(page.images, page.figure_shots):
        if non_white(shot) < 0.01:
            problems.append(f"figure {img['alt']} is painted blank ({non_white(shot):.2%} not white)")
    return problems


def expected_figures(record):
    experiments_with_rows = {r.get("experiment") for r in record.get("results", [])}
    return [e["figure"] for e in record.get("experiments", []) if e.get("figure") and e["name"] in experiments_with_rows]


def report(minigpu, run_dir):
    done = subprocess.run([minigpu, "report", run_dir], capture_output=True, text=True, timeout=180)
    path = os.path.join(run_dir, "report.html")
    if done.returncode != 0 or done.stdout.strip().splitlines()[-1:] != [path] or not os.path.isfile(path):
        raise AssertionError(f"minigpu report {run_dir}: exit {done.returncode}\n{done.stdout}{done.stderr}")
    with open(path, encoding="utf-8") as f:
        return path, f.read()


def with_first_figure_broken(text, keep_script=True):
    broken = base64.b64encode(b"these bytes are not a PNG image").decode()
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "data:image/png;base64," + broken, text, count=1)
    return text if keep_script else re.sub(r"<script>.*?</script>", "", text, flags=re.S)


def controls(browser, folder, text, figures):
    """Pages the check must reject, each with the problem it must name."""
    pages = {
        "broken figure": (with_first_figure_broken(text), figures, "did not load"),
        "broken figure, no page script": (with_first_figure_broken(text, False), figures, "did not load"),
        "blank page": ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head>'
                       "<body></body></html>", 0, "screenshot is blank"),
        "stylesheet elsewhere": (text.replace("</head>", '<link rel="stylesheet" href="https://example.invalid/x.css">'
                                                         "</head>"), figures, "Content Security Policy"),
    }
    failures = []
    for name, (html, count, needle) in pages.items():
        path = os.path.join(folder, name.replace(" ", "_").replace(",", "") + ".html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(html)
        problems = browser_problems(browser.open("file://" + path), count)
        print(f"control '{name}': rejected with {problems[:3]}")
        if not any(needle in p for p in problems):
            failures.append(f"control '{name}' was not rejected for '{needle}': {problems}")
    return failures


def static_controls(page, text, record, figures):
    """The page and table checks must notice a broken figure, an unclosed element and a wrong figure."""
    altered = json.loads(json.dumps(record))
    altered["findings"][0]["value"] = (altered["findings"][0].get("value") or 1.0) * 1.02
    altered["results"][-1]["seconds"]["median"] *= 1.02
    cases = {"broken figure": structure_problems(parse_page(with_first_figure_broken(text)), figures),
             "unclosed table": structure_problems(parse_page(text.replace("</table>", "", 1)), figures),
             "finding and row 2 % off": table_problems(page, altered)}
    return [f"static control '{name}' was not rejected" for name, problems in cases.items()
            if len(problems) < (2 if name.startswith("finding") else 1)]


def hostile_copy(run_dir, folder):
    copy = os.path.join(folder, "hostile <&> 'quote' \"run\"")
    shutil.copytree(run_dir, copy)
    path = os.path.join(copy, "run.json")
    with open(path, encoding="utf-8") as f:
        record = json.load(f)
    record["findings"][0]["note"] = HOSTILE_NOTE
    record["results"][0]["case"] = HOSTILE_CASE
    # A share above its bound, its reason in markup: shown in the row's cell, as text.
    above = next(r for r in record["results"] if r.get("ceiling"))
    above["ceiling"].update(percent=160.0, above_because=HOSTILE_REASON)
    # And one just under its bound, which must not print as the bound itself ("100 %").
    under = next(r for r in record["results"] if r.get("ceiling") and r is not above)
    under["ceiling"].update(percent=99.97)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(record, f)
    return copy, record


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    require("matplotlib", "python3-matplotlib", prefix="FAIL: ")
    *launcher, minigpu, input_file = argv
    failures = []
    with tempfile.TemporaryDirectory(prefix="minigpu_report_") as tmp:
        out = os.path.join(tmp, "runs")
        done = subprocess.run(launcher + [minigpu, "run", input_file, "--output-dir", out],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            sys.exit(f"FAIL: minigpu run exited {done.returncode}\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        run_dir = os.path.join(out, os.listdir(out)[0])
        with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
            record = json.load(f)
        figures = expected_figures(record)
        path, text = report(minigpu, run_dir)
        page = parse_page(text)
        failures += structure_problems(page, figures) + table_problems(page, record)
        print(f"report: {len(text) // 1024} KiB, {len(figures)} figures, {len(page.tables)} tables")
        failures += static_controls(page, text, record, figures)

        hostile_dir, hostile = hostile_copy(run_dir, tmp)
        _, hostile_text = report(minigpu, hostile_dir)
        hostile_page = parse_page(hostile_text)
        failures += [f"escaping: {p}" for p in structure_problems(hostile_page, figures) +
                     table_problems(hostile_page, hostile)]
        if hostile_page.scripts != 1:
            failures.append(f"escaping: {hostile_page.scripts} <script> elements, the page has one")
        try:
            with Browser() as browser:
                live = browser.open("file://" + path)
                with open("report_screenshot.png", "wb") as f:
                    f.write(live.screenshot)
                failures += browser_problems(live, len(figures))
                decoded = sum(i["naturalWidth"] > 0 for i in live.images)
                print(f"browser: {decoded} of {len(live.images)} figures decoded, "
                      f"{non_white(live.screenshot):.1%} of the screenshot not white, warnings {live.warnings}")
                bad = browser.open("file://" + os.path.join(hostile_dir, "report.html"))
                failures += [f"escaping: {p}" for p in browser_problems(bad, len(figures))]
                for literal in (HOSTILE_NOTE, HOSTILE_CASE, HOSTILE_REASON, os.path.basename(hostile_dir)):
                    if literal not in bad.state["text"]:
                        failures.append(f"escaping: the page does not show {literal!r} as text")
                failures += controls(browser, tmp, text, len(figures))
        except BrowserError as e:
            failures.append(f"browser: {e}")
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        plain = {k: v for k, v in os.environ.items() if k != "MINIGPU_EMULATE_GPUS"}  # no GPU notes
        done = subprocess.run([minigpu, "report", empty], capture_output=True, text=True, timeout=60, env=plain)
        lines = done.stderr.strip().splitlines()
        if done.returncode != 2 or len(lines) != 1 or empty not in lines[0] or "run.json" not in lines[0]:
            failures.append(f"a directory without run.json: exit {done.returncode}, stderr {done.stderr!r}")
    for failure in failures:
        print("FAIL:", failure)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
