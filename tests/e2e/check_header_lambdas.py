#!/usr/bin/env python3
"""No KOKKOS_LAMBDA (nor KOKKOS_CLASS_LAMBDA) in a header under src/: a header's templates and
inline functions are instantiated alike in several translation units, and nvcc's wrapper of a
host-device lambda (__nv_hdl_wrapper_t) calls through a pointer that only the unit making the
lambda sets, while the linker keeps one unit's instantiation. On an H200 the kept one's pointer
was null and kernels::map called address 0 (2026-11-27). Kernel bodies in headers are named
functors instead (MapBody in kernels/elementwise.hpp). Comments may name the macro.
Usage: check_header_lambdas.py SRC_DIR"""
import os
import re
import sys

DEVICE_LAMBDA = re.compile(r"\bKOKKOS_(?:CLASS_)?LAMBDA\b")
HEADER_SUFFIXES = (".hpp", ".h", ".hh", ".inl")


def without_comments(text):
    """`text` with its // and /* */ comments blanked, so that positions and lines stay."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def problems_in(path, text):
    code = without_comments(text)
    return [
        f"{path}:{code.count(chr(10), 0, m.start()) + 1}: {m.group(0)} in a header: its templates and "
        "inline functions are instantiated in several units, and nvcc's host-device lambda wrapper is "
        "set up only in the unit that made it (address 0 on an H200); write the body as a functor "
        "(see MapBody in kernels/elementwise.hpp)"
        for m in DEVICE_LAMBDA.finditer(code)
    ]


def main():
    src = sys.argv[1]
    problems, headers = [], 0
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(HEADER_SUFFIXES):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            headers += 1
            problems += problems_in(os.path.relpath(path, src), text)
    if headers == 0:
        problems.append(f"no header found under {src}: wrong directory?")
    for p in problems:
        print(p)
    print(f"{headers} headers checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
