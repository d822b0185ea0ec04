#!/usr/bin/env python3
"""docs/architecture.md says what src/CMakeLists.txt builds: the picture is exactly the one drawn
from the layers (minigpu_layer) and what each DEPENDS on (--write draws it into the page), every
layer has a row in the layout table, and each row's "may include" column names exactly the layers
that layer DEPENDS on ("X and all of the above": X, and only layers of rows above).
--self-test: on copies of both files, a layer added to CMake alone, a dependency the table lacks
and a table row for a layer CMake does not have are each caught.
Usage: check_architecture_doc.py PROJECT_DIR [--self-test | --write]"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layers import layer_graph  # noqa: E402  (the build's own graph, read the same way)

ROW = re.compile(r"^\|\s*((?:`src/[\w.]+/?`(?:,\s*)?)+)\s*\|.*\|\s*([^|]*?)\s*\|\s*$")


PICTURE = re.compile(r"```text\n(.*?)```", re.S)


def draw(graph):
    """One line per layer, from the command line down to core: the layer and what it links."""
    order = list(graph)
    depth = {}

    def deepest(layer):  # the longest chain of layers above this one
        if layer not in depth:
            above = [deepest(u) + 1 for u in graph if layer in graph[u]]
            depth[layer] = max(above, default=0)
        return depth[layer]

    layers = sorted(graph, key=lambda n: (deepest(n), order.index(n)))
    width = max(len(n) for n in graph) + 2
    lines = ["main.cpp".ljust(width) + "──► " + ", ".join(f"{n}/" for n in layers if deepest(n) == 0)]
    for n in layers:
        links = ", ".join(f"{d}/" for d in graph[n])
        lines.append(f"{n}/".ljust(width) + ("──► " + links if links else "(links no other layer)"))
    return "\n".join(lines) + "\n"


def problems(cmake_text, doc_text):
    graph = layer_graph(cmake_text)
    found = []
    picture = PICTURE.search(doc_text)
    drawn = set(re.findall(r"\b(\w+)/", picture.group(1))) if picture else set()
    if picture and picture.group(1) != draw(graph):
        found.append("the picture is not the one the build's layers draw "
                     "(tests/e2e/check_architecture_doc.py PROJECT_DIR --write redraws it)")
    rows, above = {}, set()
    for line in doc_text.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        names = re.findall(r"`src/(\w+)/`", m.group(1))
        cell = m.group(2).strip()
        for name in names:
            rows[name] = (cell, set(above))
        above.update(names)
    for layer, deps in sorted(graph.items()):
        if layer not in drawn:
            found.append(f"layer {layer} is not drawn in the picture")
        if layer not in rows:
            found.append(f"layer {layer} has no row in the layout table")
            continue
        cell, earlier = rows[layer]
        if cell in ("—", "-", ""):
            listed, rest_ok = set(), False
        elif m := re.fullmatch(r"(\w+) and all of the above", cell):
            listed, rest_ok = {m.group(1)}, True
        else:
            listed, rest_ok = {w.strip() for w in cell.split(",")}, False
        missing = set(deps) - listed - (earlier if rest_ok else set())
        extra = listed - set(deps)
        if missing:
            found.append(f"{layer}: the table's may-include lacks {sorted(missing)} (CMake DEPENDS {deps})")
        if extra:
            found.append(f"{layer}: the table names {sorted(extra)}, which CMake does not link (DEPENDS {deps})")
    for name in sorted(set(rows) - set(graph)):
        found.append(f"the table has a row for src/{name}/, which is no layer of src/CMakeLists.txt")
    return found


def self_test(cmake_text, doc_text):
    cases = {
        "a layer CMake alone knows": (cmake_text + "\nminigpu_layer(extra SOURCES extra/x.cpp DEPENDS core)\n",
                                      doc_text, "layer extra is not drawn"),
        "a dependency the table lacks": (cmake_text.replace("DEPENDS kernels ceilings)",
                                                            "DEPENDS kernels ceilings comm)"),
                                         doc_text, "gemm: the table's may-include lacks ['comm']"),
        "a row for no layer": (cmake_text, doc_text.replace("| `src/compare/` |", "| `src/compare/`, `src/gone/` |"),
                               "src/gone/, which is no layer"),
        "an arrow the build lacks": (cmake_text, doc_text.replace("──► kernels/, ceilings/", "──► kernels/, ceilings/, comm/"),
                                     "the picture is not the one the build's layers draw"),
    }
    failed = 0
    for what, (cmake, doc, want) in cases.items():
        found = problems(cmake, doc)
        if not any(want in p for p in found):
            print(f"FAIL self-test: {what} was not caught (got {found})")
            failed += 1
    print("the architecture check catches each planted mismatch" if not failed else f"{failed} self-test failure(s)")
    return 1 if failed else 0


def main():
    root = sys.argv[1]
    with open(os.path.join(root, "src", "CMakeLists.txt"), encoding="utf-8") as f:
        cmake_text = f.read()
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as f:
        doc_text = f.read()
    if "--self-test" in sys.argv:
        return self_test(cmake_text, doc_text)
    if "--write" in sys.argv:
        doc_text = PICTURE.sub(lambda m: "```text\n" + draw(layer_graph(cmake_text)) + "```", doc_text, count=1)
        with open(os.path.join(root, "docs", "architecture.md"), "w", encoding="utf-8") as f:
            f.write(doc_text)
    found = problems(cmake_text, doc_text)
    for p in found:
        print("FAIL", p)
    print(f"{len(layer_graph(cmake_text))} layers drawn and tabled as CMake builds them" if not found
          else f"{len(found)} mismatch(es)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
