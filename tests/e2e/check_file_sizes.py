#!/usr/bin/env python3
"""The size rules of docs/architecture.md, kept by a test rather than by memory: no source file
under src/ longer than 400 lines, and the chapter's experiments 250 lines each on average, an
experiment being src/experiments/X.cpp or the files of a folder src/experiments/X/ (so that an
experiment stays its cases, its kernels and its checks, the rest living in the layers below).
Usage: check_file_sizes.py SRC_DIR"""
import os
import sys

MAX_FILE_LINES = 400
MAX_MEAN_EXPERIMENT_LINES = 250
SOURCE_SUFFIXES = (".hpp", ".cpp")


def line_count(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def source_files(top):
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(root, name)


def experiment_sizes(src):
    """{experiment: lines}, one entry per file or folder directly under src/experiments."""
    top = os.path.join(src, "experiments")
    sizes = {}
    for name in sorted(os.listdir(top)):
        path = os.path.join(top, name)
        if os.path.isdir(path):
            sizes[name] = sum(line_count(f) for f in source_files(path))
        elif name.endswith(".cpp"):
            sizes[name[: -len(".cpp")]] = line_count(path)
    return sizes


def main():
    src = sys.argv[1]
    problems = [
        f"{os.path.relpath(path, src)}: {n} lines, over {MAX_FILE_LINES}"
        for path in source_files(src)
        if (n := line_count(path)) > MAX_FILE_LINES
    ]
    sizes = experiment_sizes(src)
    if not sizes:
        problems.append("no experiments found under src/experiments")
    else:
        mean = sum(sizes.values()) / len(sizes)
        if mean > MAX_MEAN_EXPERIMENT_LINES:
            listed = ", ".join(f"{name} {n}" for name, n in sorted(sizes.items(), key=lambda kv: -kv[1]))
            problems.append(
                f"experiments: mean {mean:.1f} lines, over {MAX_MEAN_EXPERIMENT_LINES} ({listed}); "
                "move what is not the experiment's own cases, kernels and checks into the layers below"
            )
        print(f"{len(sizes)} experiments, {sum(sizes.values())} lines, mean {mean:.1f}")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
