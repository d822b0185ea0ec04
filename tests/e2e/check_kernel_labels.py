#!/usr/bin/env python3
"""Every kernel launch in the sources carries a string-literal label Component::op
(elementwise::map, gemm::gpu_tiled): test_regions sees only the kernels its inputs launch on
this build, this check also sees the GPU-only ones. Nested launches over a team's threads
(TeamThreadRange, ThreadVectorRange, TeamVectorRange) are parts of their kernel, not kernels.
Usage: check_kernel_labels.py SRC_DIR"""
import os
import re
import sys

LAUNCH = re.compile(r"\bKokkos::parallel_(?:for|reduce|scan)\s*\(\s*")
NESTED = re.compile(r"Kokkos::(?:TeamThreadRange|ThreadVectorRange|TeamVectorRange)\b")
LABEL = re.compile(r'"([^"\\]*)"')
COMPONENT_OP = re.compile(r"[a-z][a-z0-9_]*::[a-z][a-z0-9_]*")


def problems_in(path, text):
    found = []
    for m in LAUNCH.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        rest = text[m.end():]
        if NESTED.match(rest):
            continue
        label = LABEL.match(rest)
        if not label:
            found.append(f"{path}:{line}: kernel launched without a string-literal label")
        elif not COMPONENT_OP.fullmatch(label.group(1)):
            found.append(f"{path}:{line}: kernel label '{label.group(1)}' is not Component::op")
    return found


def main():
    src = sys.argv[1]
    problems, launches = [], 0
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".hpp", ".cpp")):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            launches += len(LAUNCH.findall(text))
            problems += problems_in(os.path.relpath(path, src), text)
    if launches == 0:
        problems.append(f"no kernel launch found under {src}: wrong directory?")
    for p in problems:
        print(p)
    print(f"{launches} launches checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
