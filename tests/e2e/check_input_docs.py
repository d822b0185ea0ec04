#!/usr/bin/env python3
"""inputs/README.md's key tables against the config layer's own record (`minigpu list --keys`).

Every section (`run:`, the keys every experiment entry accepts, one per experiment) must list
exactly the keys the readers declare, and each row must state what the code enforces: every
bound (minimum, maximum), every choice, and the default (the constant, or where it comes from).
A bound changed in the code and not in the README, or a key added without a row, fails here.

With --write, a section missing for a registered experiment, and a row missing for a key, are
written from the record (type, bounds, choices, default), so a new experiment's keys need no
hand-kept table: its author may then say more in a row's default column, and the check holds
whatever is said to the code. Stale rows are never removed by --write: they fail.

Usage: check_input_docs.py MINIGPU INPUTS_README [--write | --self-test]
--self-test: a copy of the README without an experiment's section and without one row fails the
check, and after --write passes it, the removed keys back with their bounds and defaults.
"""
import json
import math
import os
import re
import subprocess
import sys

UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50,
         "KB": 1e3, "MB": 1e6, "GB": 1e9}
NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s*\^\s*(\d+)|e(\d+))?(?:\s*(" + "|".join(UNITS) + r")\b)?")


def numbers_in(text):
    """Every number the text states, read as a reader would: 10^6, 2^40, 1e8, 1 PiB, 1.5MiB."""
    found = []
    for base, power, exponent, unit in NUMBER.findall(text):
        value = float(base)
        if power:
            value = value ** int(power)
        elif exponent:
            value *= 10 ** int(exponent)
        found.append(value * UNITS.get(unit, 1))
    return found


def states_number(text, value):
    return any(math.isclose(value, n, rel_tol=1e-9, abs_tol=1e-12) for n in numbers_in(text))


def plain(text):
    return text.replace("`", "")


def cells_of(row):
    """A table row's cells; `\\|` inside a cell is text, not a border."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def sections(readme):
    """{section: (glossary paragraph, {key: row text})} from the README's '## ' headings."""
    out, name = {}, None
    for line in readme.splitlines():
        heading = re.match(r"^## (.*)$", line)
        if heading:
            title = heading.group(1).strip()
            key = re.fullmatch(r"`(\w+):?`(?: \(optional\))?", title)
            name = ("run" if key and key.group(1) == "run" else key.group(1)) if key else (
                "every_experiment" if title.startswith("Keys every experiment") else None)
            if name:
                out[name] = ["", {}]
            continue
        if name is None:
            continue
        if line.startswith("|"):
            cells = cells_of(line)
            keys = re.findall(r"`([a-z_]+)`", cells[0])
            if cells[0] in ("key", "") or set(cells[0]) <= set("-: "):
                continue
            for k in keys:
                out[name][1][k] = line
        else:
            out[name][0] += line + "\n"
    return out


def check_key(section, key, facts, row, glossary, problems):
    where = f"{section}.{key}"
    cells = cells_of(row)
    type_cell = plain(cells[1]) if len(cells) > 1 else ""
    # A type named in the prose ("dtypes", "device") is defined there, choices included.
    text = row + ("\n" + glossary if type_cell in ("dtypes", "device") else "")
    kind = facts.get("type")
    expected_word = {"integer": "integer", "number": "number", "boolean": "boolean"}.get(kind)
    if expected_word and expected_word not in type_cell:
        problems.append(f"{where}: the code reads {kind}, the README's type says '{type_cell}'")
    if kind == "array" and not re.search(r"list|sizes|dtypes|\[", type_cell):
        problems.append(f"{where}: the code reads a list, the README's type says '{type_cell}'")
    for scope, bounds in (("", facts), ("every item ", facts.get("items", {}))):
        for bound in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if bound in bounds and not states_number(plain(row), bounds[bound]):
                problems.append(f"{where}: {scope}{bound} {bounds[bound]} is not stated in: {row.strip()}")
        # The experiment names are `minigpu list`'s, which the row may point to instead.
        listed = key == "name" and "`minigpu list`" in row
        for choice in [] if listed else bounds.get("enum", []):
            if f"`{choice}`" not in text:
                problems.append(f"{where}: choice '{choice}' is not listed (as `{choice}`) in: {row.strip()}")
    # Defaults are read from the default column alone: a choice named elsewhere in the row
    # (in the meaning, say) is not its default.
    row = cells[2] if len(cells) > 2 else row
    if "default_from" in facts:
        if plain(facts["default_from"]) not in plain(row):
            problems.append(f"{where}: the default comes from '{facts['default_from']}', "
                            f"which the row does not say: {row.strip()}")
        return
    if facts.get("required"):
        if "required" not in row:
            problems.append(f"{where}: required, and the row does not say so")
        return
    default = facts.get("default")
    values = default if isinstance(default, list) else [default]
    every_choice = facts.get("items", {}).get("enum")
    if every_choice and sorted(values) == sorted(every_choice) and re.match(r"(all|both)\b", plain(row)):
        return  # "all three", "both": the whole list of choices
    written = re.search(r"\[([^\]]*)\]", plain(row))
    if isinstance(default, list) and written:  # "[vendor, tiled]": exactly these items
        items = [i.strip() for i in written.group(1).split(",")]
        same = len(items) == len(values) and all(
            states_number(i, v) if isinstance(v, (int, float)) else i == v for i, v in zip(items, values))
        if not same:
            problems.append(f"{where}: default {json.dumps(default)} differs from the README's [{written.group(1)}]")
        return
    if len(values) > 4:  # a long sweep is documented by its ends ("1 KiB, 4 KiB, … 1 GiB")
        values = [values[0], values[-1]]
    for value in values:
        if isinstance(value, bool):
            ok = f"`{str(value).lower()}`" in row
        elif isinstance(value, (int, float)):
            ok = states_number(plain(row), value)
        elif isinstance(value, str):
            ok = re.search(r"(?<![\w-])" + re.escape(value) + r"(?![\w-])", plain(row)) is not None
        else:
            ok = False
        if not ok:
            problems.append(f"{where}: default {json.dumps(default)} is not stated in: {row.strip()}")
            break


def number_text(v):
    """A bound as the tables write it: 2^40 for a large power of two, 10^9 for a power of ten."""
    if isinstance(v, float) and not v.is_integer():
        return f"{v:g}"
    v = int(v)
    if v >= 1024 and v & (v - 1) == 0:
        return f"2^{v.bit_length() - 1}"
    if v >= 10**6 and str(v).rstrip("0") == "1":
        return f"10^{len(str(v)) - 1}"
    return str(v)


def type_text(facts):
    """The type column: the kind, its bounds and its choices, as check_key reads them back."""
    kind = facts.get("type")
    if kind == "array":
        items = facts.get("items", {})
        inner = type_text(items) if items.get("type") != "string" or not items.get("enum") else None
        if items.get("enum"):
            return "list of " + ", ".join(f"`{c}`" for c in items["enum"])
        return f"list of {inner}" if inner else "list"
    if facts.get("enum"):
        return " \\| ".join(f"`{c}`" for c in facts["enum"])
    low = facts.get("minimum", facts.get("exclusiveMinimum"))
    high = facts.get("maximum", facts.get("exclusiveMaximum"))
    text = {"integer": "integer", "number": "number", "boolean": "`true` \\| `false`"}.get(kind, kind or "string")
    if low is not None and high is not None:
        if "exclusiveMinimum" in facts or "exclusiveMaximum" in facts:
            left = "(" if "exclusiveMinimum" in facts else "["
            right = ")" if "exclusiveMaximum" in facts else "]"
            return f"{text} in {left}{number_text(low)}, {number_text(high)}{right}"
        return f"{text} {number_text(low)} … {number_text(high)}"
    if low is not None:
        return f"{text} {'>' if 'exclusiveMinimum' in facts else '≥'} {number_text(low)}"
    if high is not None:
        return f"{text} {'<' if 'exclusiveMaximum' in facts else '≤'} {number_text(high)}"
    return text


def default_text(facts):
    if "default_from" in facts:
        return f"`{facts['default_from']}`"
    if facts.get("required"):
        return "required"
    default = facts.get("default")
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    if isinstance(default, list):
        return "[" + ", ".join(number_text(v) if isinstance(v, (int, float)) else str(v) for v in default) + "]"
    if isinstance(default, (int, float)):
        return number_text(default)
    if default in (None, ""):
        return "—"
    return f"`{default}`" if re.fullmatch(r"[\w.+-]+", str(default)) else str(default)


def row_text(key, facts):
    kind = "device" if key == "device" and facts.get("type") == "string" else type_text(facts)  # the glossary's
    return f"| `{key}` | {kind} | {default_text(facts)} |"


def write_missing(readme, expected):
    """The README with a section for each experiment it lacks and a row for each key missing from
    a section, both from the record; the number of rows written."""
    documented, written = sections(readme), 0
    lines = readme.rstrip("\n").split("\n")
    for section, keys in expected.items():
        if section not in documented:
            continue
        missing = [k for k in keys if k not in documented[section][1]]
        if not missing:
            continue
        heading = next(i for i, l in enumerate(lines) if re.match(r"^## ", l) and (
            l.strip().startswith(f"## `{section}") or (section == "every_experiment" and "Keys every" in l)))
        end = next((i for i in range(heading + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        last_row = max(i for i in range(heading, end) if lines[i].startswith("|"))
        lines[last_row + 1:last_row + 1] = [row_text(k, keys[k]) for k in missing]
        written += len(missing)
    for section, keys in expected.items():
        if section in documented:
            continue
        lines += ["", f"## `{section}`", "| key | type | default |", "|---|---|---|"]
        lines += [row_text(k, keys[k]) for k in keys]
        written += len(keys)
    return "\n".join(lines) + "\n", written


def main(minigpu, readme_path, write=False):
    declared = json.loads(subprocess.run([minigpu, "list", "--keys"], check=True, capture_output=True,
                                         text=True).stdout)
    expected = {"run": declared["run"], "every_experiment": declared["every_experiment"],
                **declared["experiments"]}
    if write:
        text, written = write_missing(open(readme_path, encoding="utf-8").read(), expected)
        if written:
            with open(readme_path, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"wrote {written} row(s) into {readme_path} from `minigpu list --keys`")
    documented = sections(open(readme_path, encoding="utf-8").read())
    glossary = documented.get("every_experiment", ["", {}])[0]
    problems = []
    for section, keys in expected.items():
        if section not in documented:
            problems.append(f"no '## `{section}`' section for {sorted(keys)}")
            continue
        rows = documented[section][1]
        for missing in sorted(set(keys) - set(rows)):
            problems.append(f"{section}.{missing}: read by the code, missing from the README")
        for stale in sorted(set(rows) - set(keys)):
            problems.append(f"{section}.{stale}: in the README, read by no code")
        for key in sorted(set(keys) & set(rows)):
            check_key(section, key, keys[key], rows[key], glossary, problems)
    for extra in sorted(set(documented) - set(expected)):
        problems.append(f"README section '{extra}' is no experiment of `minigpu list`")
    checked = sum(len(k) for k in expected.values())
    if problems:
        print("\n".join(problems))
        print(f"FAIL: {len(problems)} disagreement(s) between {readme_path} and `minigpu list --keys`")
        return 1
    print(f"{checked} keys in {len(expected)} sections: README and code agree on keys, bounds, choices, defaults")
    return 0


def self_test(minigpu, readme_path):
    import contextlib
    import io
    import tempfile
    text = open(readme_path, encoding="utf-8").read()
    cut = re.sub(r"^## `lazy`\n.*?(?=^## )", "", text, count=1, flags=re.M | re.S)
    cut = re.sub(r"^\| `steps` \|.*\n", "", cut, count=1, flags=re.M)
    if cut.count("\n") >= text.count("\n") - 4:
        print("FAIL: self-test: the README no longer has a `lazy` section and a `steps` row to remove")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "README.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write(cut)
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet):
            before = main(minigpu, path)
            after = main(minigpu, path, write=True)
        written = open(path, encoding="utf-8").read()
    problems = []
    if before == 0:
        problems.append("the cut README passed the check")
    if after != 0:
        problems.append("the check still fails after --write:\n" + quiet.getvalue())
    for expected in ("## `lazy`", "| `elements` | integer 1 … 2^40 | 10^8 |", "| `steps` | integer 1 … 10^7 |"):
        if expected not in written:
            problems.append(f"--write did not write {expected!r}")
    for p in problems:
        print("FAIL:", p)
    print("ok: --write restored a removed section and row" if not problems else "")
    return 1 if problems else 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    if "--self-test" in sys.argv:
        sys.exit(self_test(*args))
    sys.exit(main(*args, write="--write" in sys.argv))
