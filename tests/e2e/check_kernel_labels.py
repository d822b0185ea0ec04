#!/usr/bin/env python3
"""Every kernel launch in the sources carries a string-literal label Component::op
(elementwise::map, gemm::gpu_tiled): test_regions sees only the kernels its inputs launch on
this build, this check also sees the GPU-only ones. Nested launches over a team's threads
(TeamThreadRange, ThreadVectorRange, TeamVectorRange) are parts of their kernel, not kernels.
And every KOKKOS_LAMBDA is handed to a Kokkos launch or named in the function that launches it,
never passed to another function: nvcc copies a host-device lambda through a per-unit function
pointer that only the unit making it sets, so a template that takes one (map(out, in,
KOKKOS_LAMBDA ...)), instantiated in several units, called address 0 on an H200. Functors pass.
Usage: check_kernel_labels.py SRC_DIR"""
import os
import re
import sys

LAUNCH = re.compile(r"\bKokkos::parallel_(?:for|reduce|scan)\s*\(\s*")
NESTED = re.compile(r"Kokkos::(?:TeamThreadRange|ThreadVectorRange|TeamVectorRange)\b")
LABEL = re.compile(r'"([^"\\]*)"')
COMPONENT_OP = re.compile(r"[a-z][a-z0-9_]*::[a-z][a-z0-9_]*")
DEVICE_LAMBDA = re.compile(r"\bKOKKOS_(?:CLASS_)?LAMBDA\b")
CALLEE = re.compile(r"([A-Za-z_][A-Za-z0-9_:]*)\s*(?:<[^()]*>)?\s*$")


def lambda_receiver(text, at):
    """What receives the lambda starting at `at`: '=' when it is named, else the called
    function's name (the identifier before the innermost unclosed '('), '' when neither."""
    depth = 0
    for i in range(at - 1, -1, -1):
        c = text[i]
        if c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                if c != "(":
                    return ""
                m = CALLEE.search(text[:i])
                return m.group(1) if m else ""
            depth -= 1
        elif c in ";" and depth == 0:
            return ""
        elif c == "=" and depth == 0 and text[i - 1] not in "=!<>" and text[i + 1] != "=":
            return "="
    return ""


def without_comments(text):
    """`text` with its // and /* */ comments blanked, so that positions and lines stay."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def lambdas_passed_on(path, text):
    found = []
    text = without_comments(text)
    for m in DEVICE_LAMBDA.finditer(text):
        receiver = lambda_receiver(text, m.start())
        if receiver == "=" or re.search(r"(?:^|::)parallel_(?:for|reduce|scan)$", receiver):
            continue
        line = text.count("\n", 0, m.start()) + 1
        found.append(f"{path}:{line}: KOKKOS_LAMBDA passed to {receiver or 'something'}, not to a Kokkos "
                     "launch: pass a functor (nvcc's host-device lambda is copied through a per-unit pointer)")
    return found


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
            problems += lambdas_passed_on(os.path.relpath(path, src), text)
    if launches == 0:
        problems.append(f"no kernel launch found under {src}: wrong directory?")
    for p in problems:
        print(p)
    print(f"{launches} launches checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
