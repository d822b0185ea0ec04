"""The little HTML the report needs: every text escaped unless it is `Markup` built here,
numbers and times in the console's units, tables from rows of cells."""
import html
import math


class Markup(str):
    """Text that is already HTML (built by these helpers from escaped parts)."""


def esc(value):
    """Any value as HTML text: Markup passes through, None is nothing, the rest is escaped."""
    if isinstance(value, Markup):
        return value
    return Markup("" if value is None else html.escape(str(value), quote=True))


def cell(value):
    """A table or list entry: an absent value shows as an em dash, not as a blank."""
    return Markup("&mdash;") if value is None or value == "" else esc(value)


def tag(name, content="", **attrs):
    """<name attrs>content</name>; attribute names may end in _ (class_) to dodge keywords."""
    shown = "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in attrs.items() if v is not None)
    return Markup(f"<{name}{shown}>{esc(content)}</{name}>")


def join(parts, sep=""):
    return Markup(esc(sep).join(esc(p) for p in parts))


def rounded(v, digits, rounding):
    """`v` rounded "down" or "up" at `digits` significant digits (an interval's ends, outward)."""
    if v == 0:
        return v
    scale = 10.0 ** (digits - 1 - math.floor(math.log10(abs(v))))
    # A product a rounding error off the grid (1.04e-3 / 1e-3 * 100 = 103.99999999999999) is on it.
    x = v * scale
    x = round(x) if abs(x - round(x)) < 1e-9 * abs(x) else x
    return (math.floor if rounding == "down" else math.ceil)(x) / scale


def number(v, digits=3, rounding=None):
    """`digits` significant digits, written out (1140, 0.00233) between 1e-3 and 1e7; rounded
    "down" or "up" instead of to the nearest when asked (rounded())."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    if v == 0:
        return "0"
    if isinstance(v, int):
        return str(v)
    if rounding:
        v = rounded(v, digits, rounding)
    if not 1e-3 <= abs(v) < 1e7:
        return f"{v:.{digits}g}"
    text = f"{v:.{max(0, digits - 1 - math.floor(math.log10(abs(v))))}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def number_apart(v, other, digits=3):
    """number(v), with more digits where `digits` would print it as `other` (a share of 99.97 %
    is "99.97", never "100"); as the console does (io::significant_apart)."""
    if not isinstance(v, (int, float)) or not math.isfinite(v) or v == other:
        return number(v, digits)
    while digits < 9 and number(v, digits) == number(other, digits):
        digits += 1
    return number(v, digits)


def interval(lo, hi, mark=None, show=number):
    """"[lo, hi]" rounded outward, so it holds the true interval and the median inside it (never
    "[99, 99]" about 98.96), with more digits where an end past `mark` (100 for an efficiency)
    would print on its near side; as the console does (io::interval). An end that is missing or
    not finite is shown as number() shows it ("—")."""
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (lo, hi)):
        return f"[{show(lo)}, {show(hi)}]"
    for digits in range(3, 10):
        if mark is None or digits == 9 or (
                (lo <= mark or rounded(lo, digits, "down") > mark)
                and (hi >= mark or rounded(hi, digits, "up") < mark)):
            return f"[{show(lo, digits, 'down')}, {show(hi, digits, 'up')}]"


def seconds(v, digits=3, rounding=None):
    """1.04 ms, 93 ns: the unit that keeps the mantissa between 1 and 1000."""
    if v is None:
        return "—"
    for factor, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if abs(v) >= factor or unit == "ns":
            return f"{number(v / factor, digits, rounding)} {unit}"
    return f"{number(v, digits, rounding)} s"


def percent(v, digits=3):
    return "—" if v is None else f"{number(v, digits)} %"


def table(headers, rows, row_classes=None, caption=None):
    """A <table> with a header row; each row a list of cells (values or Markup)."""
    head = tag("tr", join(tag("th", h, scope="col") for h in headers))
    body = []
    for i, row in enumerate(rows):
        cls = row_classes[i] if row_classes else None
        body.append(tag("tr", join(tag("td", cell(c)) for c in row), class_=cls or None))
    return tag("table", join([tag("caption", caption) if caption else "", tag("thead", head),
                              tag("tbody", join(body))]))


def definitions(pairs):
    """A <dl> of (term, value) pairs, skipping absent values."""
    return tag("dl", join(join([tag("dt", k), tag("dd", cell(v))]) for k, v in pairs if v not in (None, "", [], {})))
