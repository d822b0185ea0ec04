"""Reads a report.html back with the standard library's HTML parser, and holds its structure
and its tables against run.json (for check_report.py). Numbers are read from the page's text
and compared with the record's to the precision shown: nothing is taken from scripts/report.py."""
import base64
import binascii
import math
import re
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.tables, self.images, self.ids, self.hrefs = [], [], [], [], [], []
        self.doctype, self.attrs_of, self.scripts, self.links, self.style = None, {}, 0, 0, ""
        self.title, self.cell, self.row = "", None, None

    def handle_decl(self, decl):
        if self.doctype is not None or self.stack:
            self.problems.append(f"a doctype where none belongs: {decl}")
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.attrs_of.setdefault(tag, a)
        if "id" in a:
            self.ids.append(a["id"])
        if "href" in a:
            self.hrefs.append(a["href"])
        if tag == "img":
            self.images.append(a)
        self.scripts += tag == "script"
        self.links += tag == "link"
        if tag == "table":
            self.tables.append({"caption": "", "headers": [], "rows": []})
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = ""
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>")
            return
        self.stack.pop()
        if tag in ("td", "th") and self.row is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.tables:
            t = self.tables[-1]
            if t["headers"]:
                t["rows"].append(self.row)
            else:
                t["headers"] = self.row
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.stack and self.stack[-1] == "caption":
            self.tables[-1]["caption"] += data
        elif self.stack and self.stack[-1] == "title":
            self.title += data
        elif self.stack and self.stack[-1] == "style":
            self.style += data

    def table(self, first_headers):
        found = [t for t in self.tables if t["headers"][:len(first_headers)] == first_headers]
        return found[0] if len(found) == 1 else None


def parse_page(text):
    page = Page()
    page.feed(text)
    page.close()
    if page.stack:
        page.problems.append(f"never closed: {page.stack}")
    return page


def structure_problems(page, figures):
    p = list(page.problems)
    if (page.doctype or "").lower() != "doctype html":
        p.append(f"doctype {page.doctype!r}, not 'DOCTYPE html'")
    if not page.attrs_of.get("html", {}).get("lang"):
        p.append("<html> has no lang")
    if page.attrs_of.get("meta", {}).get("charset", "").lower() != "utf-8":
        p.append("the first <meta> is not charset utf-8")
    if not page.title.strip():
        p.append("no <title>")
    if page.links or "url(" in page.style or "@import" in page.style:
        p.append("a stylesheet or url() would load from elsewhere")
    for h in page.hrefs:
        if not h.startswith("#") or h[1:] not in page.ids:
            p.append(f"href {h!r} is not an anchor on the page")
    if len(set(page.ids)) != len(page.ids):
        p.append(f"duplicate ids: {page.ids}")
    if [i.get("alt") for i in page.images] != figures:
        p.append(f"images {[i.get('alt') for i in page.images]}, figures of the run {figures}")
    for img in page.images:
        src = img.get("src", "")
        prefix = "data:image/png;base64,"
        try:
            ok = src.startswith(prefix) and base64.b64decode(src[len(prefix):], validate=True).startswith(PNG_SIGNATURE)
        except binascii.Error:
            ok = False
        if not ok:
            p.append(f"image {img.get('alt')}: its src is not an embedded PNG ({src[:40]!r})")
    return p


def number(text):
    """The leading number of a cell ('26.3 GB/s', '−3.6 %'), or None for the dash."""
    m = re.match(r"^\s*([+\-−]?[0-9.]+(?:e[+-]?\d+)?)", text.replace("\u2009", ""))
    return float(m.group(1).replace("−", "-")) if m else None


def time_of(text):
    m = re.match(r"^\s*([0-9.]+(?:e[+-]?\d+)?)\s*(s|ms|µs|us|ns)\b", text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def close(shown, actual, digits=3):
    """`shown` is `actual` rounded to `digits` significant digits."""
    if shown is None or actual is None:
        return shown is None and actual is None
    return math.isclose(shown, actual, rel_tol=0.51 * 10 ** (1 - digits), abs_tol=1e-12)


def holds(shown, actual, digits=3):
    """The shown interval is the actual one rounded outward, at `digits` significant digits or
    more: it holds the actual one and reaches past it by less than a unit in the last digit."""
    if None in shown or None in actual:
        return list(shown) == list(actual)
    (slo, shi), (lo, hi) = shown, actual
    unit = 1.0001 * 10 ** (1 - digits)
    return (slo <= lo * (1 + 1e-9) and shi >= hi * (1 - 1e-9)
            and math.isclose(slo, lo, rel_tol=unit) and math.isclose(shi, hi, rel_tol=unit))


def table_problems(page, record):
    p = []
    findings, results = record.get("findings", []), record.get("results", [])
    tables = {"findings": page.table(["experiment", "finding"]), "results": page.table(["experiment", "case"]),
              "ranks": page.table(["rank", "host"]), "model": page.table(["case", "measured median"])}
    for name, t in tables.items():
        if t is None and (name != "model" or record.get("scaling_model")):
            p.append(f"no single {name} table")
    if tables["findings"]:
        rows = tables["findings"]["rows"]
        if len(rows) != len(findings):
            p.append(f"{len(rows)} findings shown, {len(findings)} in run.json")
        for row, f in zip(rows, findings):
            ci = f.get("ci95") or [None, None]
            shown_ci = [number(x) for x in re.findall(r"[-0-9.e+]+", row[3])] if f.get("ci95") else [None, None]
            if row[1] != f["name"] or not close(number(row[2]), f.get("value")) or not holds(
                    shown_ci, ci) or row[5] != (f.get("note") or "—"):
                p.append(f"finding {f['name']}: shown {row}, run.json {f}")
            unflagged = f.get("reliable") is not False
            if (row[4] == "n/a") != (f.get("value") is None and unflagged) or (
                    row[4] != "n/a" and (row[4] == "ok") != unflagged):
                p.append(f"finding {f['name']}: flag {row[4]!r}, value {f.get('value')}, reliable {f.get('reliable')}")
    if tables["results"]:
        rows = tables["results"]["rows"]
        if len(rows) != len(results):
            p.append(f"{len(rows)} rows shown, {len(results)} in run.json")
        for row, r in zip(rows, results):
            error = r.get("error") or {}  # "3.9e-03 max-abs, 1.8e-03 Frobenius", or "—" without one
            shown_error = [number(x) for x in re.findall(r"[-0-9.e+]+(?= )", row[12])]
            ok = (row[1] == r["case"] and close(time_of(row[5]), r["seconds"]["median"])
                  and (shown_error == [] if not error else len(shown_error) == 2 and all(
                      close(s, error.get(k), 2) for s, k in zip(shown_error, ("max_abs_rel", "frobenius_rel"))))
                  and (row[13] == "ok") == (r.get("reliable") is not False)
                  and row[14] == ("ok" if r.get("verified") else "FAIL"))
            if not ok:
                p.append(f"row {r['experiment']} {r['case']}: shown {row}")
            ceiling = r.get("ceiling") or {}
            share = re.match(r"[-0-9.e+]+(?= % of)", row[10])
            if ceiling.get("percent") is not None and not (
                    share and close(float(share.group()), ceiling["percent"])
                    and (float(share.group()) == 100) == (ceiling["percent"] == 100)):
                p.append(f"row {r['experiment']} {r['case']}: {ceiling['percent']} % of its ceiling, shown "
                         f"{row[10]!r} (a share is never rounded onto 100 %)")
            # A ceiling counted k times (k ranks each on its own device) is named as k x it.
            named = (f"{ceiling['scale']} x " if (ceiling.get("scale") or 1) > 1 else "") + str(ceiling.get("name"))
            if ceiling.get("percent") is not None and f" % of {named}" not in row[10]:
                p.append(f"row {r['experiment']} {r['case']}: shown {row[10]!r}, not as a share of {named!r}")
            if (ceiling.get("percent") or 0) > 100 and f"above its ceiling: {ceiling.get('above_because')}" not in row[10]:
                p.append(f"row {r['experiment']} {r['case']}: {ceiling.get('percent')} % of its ceiling, "
                         f"shown {row[10]!r} without its reason {ceiling.get('above_because')!r}")
    if tables["ranks"]:
        shown = [(int(row[0]), row[4]) for row in tables["ranks"]["rows"]]
        if shown != [(r["rank"], r["device"]) for r in record["mpi"]["ranks"]]:
            p.append(f"rank map {shown}, run.json {record['mpi']['ranks']}")
    if tables["model"]:
        modelled = [r for r in results if "model_s" in r.get("values", {})]
        rows = tables["model"]["rows"]
        if len(rows) != len(modelled):
            p.append(f"{len(rows)} model rows shown, {len(modelled)} rows with model_s in run.json")
        for row, r in zip(rows, modelled):
            v = r["values"]
            if not (row[0] == r["case"] and close(time_of(row[1]), r["seconds"]["median"])
                    and close(time_of(row[2]), v["model_s"]) and close(number(row[3]), v["model_error_pct"], 2)):
                p.append(f"model row {r['case']}: shown {row}, run.json {v}")
    return p
