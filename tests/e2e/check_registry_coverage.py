#!/usr/bin/env python3
"""Every registered experiment is whole, and every experiment file is registered.

The registry (`minigpu list --json`) is the one place that names an experiment, its chapter
question, its figure and the findings it may report. Adding experiment X takes its file, its
input and its registration line; everything else follows from the registry. From it this test
requires, and fails naming whatever is missing:
  - src/experiments/<name>.cpp, or src/experiments/<name>/<name>.cpp, registering <name>;
  - inputs/<name>.yaml running it;
  - README's experiment table and docs/measuring.md's metrics table, rows as the registry
    generates them (run with --write to write them in place: a missing row is added, the
    description standing for the cases column, which an author may then reword);
and of what an experiment may add (a drawer scripts/plotlib/<name>.py, a test
tests/**/test_<name>.cpp, an entry in inputs/quickstart.yaml) that a drawer has a draw(), a test
is built by tests/CMakeLists.txt and a quickstart entry names a registered experiment. Without
a drawer, plot.py draws the experiment with plotlib/any_experiment.py; without a test of its own
it is planned, run and verified by test_regions from its registration's smallest keys; its
inputs/README.md section is written by check_input_docs.py --write. It refuses a file or folder
in src/experiments/ that is named like no registered experiment. docs/architecture.md's "Adding
an experiment" must list exactly the files required here, so the worked example there cannot
drift from what this test enforces.

Usage: check_registry_coverage.py MINIGPU REPO_ROOT [--write | --self-test]
--self-test copies what the check reads into a scratch tree and shows that a forgotten input, a
drawer without draw(), an unbuilt test, a stale quickstart entry, a table row or a stray
experiment file each fails it.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# What adding experiment X takes, as docs/architecture.md spells it (X for the name).
REQUIRED = ["src/experiments/X.cpp", "inputs/X.yaml"]


def registry(minigpu):
    out = subprocess.run([minigpu, "list", "--json"], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        sys.exit(f"FAIL: {minigpu} list --json exited {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def runs_experiment(text, name):
    return re.search(rf"^\s*-\s*name:\s*{re.escape(name)}\s*$", text, re.M) is not None


def readme_row(e):
    return f"| `{e['name']}` | {e['question']} | [`inputs/{e['name']}.yaml`](inputs/{e['name']}.yaml) |"


def findings_cell(e):
    if not e["findings"]:
        return "—"
    return "; ".join(f"`{f['pattern']}` ({f['unit']}): {f['definition']}" for f in e["findings"])


def table_rows(text, columns):
    """{experiment: (line, cells)} for the markdown rows whose first cell is `name` and which
    have `columns` cells."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == columns:
            rows[cells[0].strip("`")] = (line, cells)
    return rows


def with_row(text, rows, row):
    """`text` with `row` after the last of the table `rows` ({name: (line, cells)}) came from."""
    last = max(text.index(line) + len(line) for line, _ in rows.values())
    return text[:last] + "\n" + row + text[last:]


def check_tables(root, experiments, write):
    errors = []
    readme, measuring = read(root, "README.md"), read(root, "docs/measuring.md")
    have = table_rows(readme, 3)
    for e in experiments:
        want = readme_row(e)
        if e["name"] not in have and write and have:
            readme = with_row(readme, have, want)
        elif e["name"] not in have:
            errors.append(f"README.md: the experiment table has no row for {e['name']}: add\n  {want}")
        elif have[e["name"]][0] != want:
            if write:
                readme = readme.replace(have[e["name"]][0], want)
            else:
                errors.append(f"README.md: {e['name']}'s row differs from the registry; expected\n  {want}")
    for extra in set(have) - {e["name"] for e in experiments}:
        errors.append(f"README.md: the experiment table names {extra}, which is not registered")
    have = table_rows(measuring, 4)
    for e in experiments:
        if e["name"] not in have and write and have:  # its description stands for the cases
            measuring = with_row(measuring, have, "| " + " | ".join(
                [f"`{e['name']}`", e["question"], e["description"], findings_cell(e)]) + " |")
            continue
        if e["name"] not in have:
            errors.append(f"docs/measuring.md: the metrics table has no row for {e['name']}")
            continue
        line, cells = have[e["name"]]
        want = "| " + " | ".join([cells[0], e["question"], cells[2], findings_cell(e)]) + " |"
        if line != want:
            if write:
                measuring = measuring.replace(line, want)
            else:
                errors.append(f"docs/measuring.md: {e['name']}'s question or findings differ from the registry; "
                              f"expected\n  {want}")
    if write:
        for path, text in (("README.md", readme), ("docs/measuring.md", measuring)):
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
    return errors


def check_files(root, experiments):
    errors = []
    names = {e["name"] for e in experiments}
    quickstart = read(root, "inputs/quickstart.yaml")
    tests_cmake = read(root, "tests/CMakeLists.txt")
    for e in experiments:
        n = e["name"]
        sources = [p for p in (f"src/experiments/{n}.cpp", f"src/experiments/{n}/{n}.cpp")
                   if os.path.isfile(os.path.join(root, p))]
        if not sources:
            errors.append(f"{n}: no src/experiments/{n}.cpp (nor src/experiments/{n}/{n}.cpp)")
        elif not re.search(rf'MINIGPU_REGISTER_EXPERIMENT\(\s*\w+,\s*{{\s*"{re.escape(n)}",', read(root, sources[0])):
            errors.append(f"{n}: {sources[0]} does not register \"{n}\" (MINIGPU_REGISTER_EXPERIMENT)")
        path = f"inputs/{n}.yaml"
        if not os.path.isfile(os.path.join(root, path)):
            errors.append(f"{n}: no input {path}")
        elif not runs_experiment(read(root, path), n):
            errors.append(f"{n}: {path} has no `- name: {n}` entry")
        tests = glob.glob(os.path.join(root, "tests", "**", f"test_{n}.cpp"), recursive=True)
        if tests and not re.search(rf"\btest_{re.escape(n)}\.cpp\b", tests_cmake):
            errors.append(f"{n}: tests/CMakeLists.txt does not build test_{n}.cpp")
        drawer = os.path.join(root, "scripts", "plotlib", f"{n}.py")
        if e["figure"] and os.path.isfile(drawer) and not re.search(r"^def draw\(plt, run, rows\):",
                                                                     read(root, drawer), re.M):
            errors.append(f"{n}: scripts/plotlib/{n}.py has no draw(plt, run, rows)")
    for listed in re.findall(r"^\s*-\s*name:\s*(\w+)\s*$", quickstart, re.M):
        if listed not in names:
            errors.append(f"inputs/quickstart.yaml: runs {listed}, which is not registered")
    for entry in sorted(os.listdir(os.path.join(root, "src", "experiments"))):
        stem = entry.split(".")[0]
        if stem not in names:
            errors.append(f"src/experiments/{entry}: named like no registered experiment "
                          f"(registered: {', '.join(sorted(names))})")
    return errors


def check_worked_example(root):
    text = read(root, "docs/architecture.md")
    m = re.search(r"^## Adding an experiment\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        return ["docs/architecture.md: no '## Adding an experiment' section"]
    listed = re.findall(r"\*\*`((?:src|inputs|scripts|tests)/[^`]*)`\*\*", m.group(1))  # the bold file names
    missing = [p for p in REQUIRED if p not in listed]
    extra = [p for p in dict.fromkeys(listed) if p not in REQUIRED]
    return ([f"docs/architecture.md: 'Adding an experiment' does not list {p}" for p in missing] +
            [f"docs/architecture.md: 'Adding an experiment' lists {p}, which this test does not require"
             for p in extra])


def problems(experiments, root, write=False):
    return check_files(root, experiments) + check_tables(root, experiments, write) + check_worked_example(root)


def self_test(experiments, root):
    """Each mutation of a good copy must fail with a message naming what it broke."""
    def edit(path, old, new):
        def apply(tree):
            full = os.path.join(tree, path)
            text = read(tree, path)
            assert old in text, f"self-test: {path} no longer holds {old!r}"
            with open(full, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new, 1))
        return apply
    cases = {
        "no input inputs/lazy.yaml": lambda t: os.remove(os.path.join(t, "inputs/lazy.yaml")),
        "plotlib/lazy.py has no draw": edit("scripts/plotlib/lazy.py", "def draw(plt, run, rows):",
                                            "def draw_lazy(plt, run, rows):"),
        "does not build test_logging.cpp": edit("tests/CMakeLists.txt", "test_logging.cpp", "test_logging_gone.cpp"),
        "inputs/quickstart.yaml: runs linear_renamed": edit("inputs/quickstart.yaml", "- name: linear",
                                                            "- name: linear_renamed"),
        "src/experiments/stray.cpp": lambda t: open(os.path.join(t, "src/experiments/stray.cpp"), "w").close(),
        "README.md: matmul's row differs": edit("README.md", "| `matmul` | ", "| `matmul` | a stale question; "),
        "docs/measuring.md: devices's question": edit("docs/measuring.md", "| `devices` | ", "| `devices` | old: "),
        "does not list inputs/X.yaml": edit("docs/architecture.md", "**`inputs/X.yaml`**", "**the input**"),
    }
    failures = 0
    for expected, mutate in cases.items():
        with tempfile.TemporaryDirectory() as scratch:
            tree = os.path.join(scratch, "repo")
            for part in ("README.md", "docs", "inputs", "scripts/plotlib", "src/experiments", "tests"):
                src, dst = os.path.join(root, part), os.path.join(tree, part)
                if os.path.isdir(src):
                    shutil.copytree(src, dst)
                else:
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.copy(src, dst)
            if problems(experiments, tree):
                print(f"FAIL: the unchanged copy already fails: {problems(experiments, tree)}")
                return 1
            mutate(tree)
            found = problems(experiments, tree)
            if not any(expected in e for e in found):
                print(f"FAIL: breaking '{expected}' was not caught (got: {found})")
                failures += 1
            else:
                print(f"ok: caught '{expected}'")
    return 1 if failures else 0


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    minigpu, root = args
    experiments = registry(minigpu)
    if not experiments:
        sys.exit("FAIL: the registry lists no experiment")
    if "--self-test" in sys.argv:
        sys.exit(self_test(experiments, root))
    errors = problems(experiments, root, "--write" in sys.argv)
    for e in errors:
        print("FAIL:", e)
    if errors:
        sys.exit(1)
    print(f"ok: {len(experiments)} experiments, each with its source, input and table rows (drawers with "
          "draw(), tests built, quickstart entries registered); every file in src/experiments/ registered")


if __name__ == "__main__":
    main()
