#!/usr/bin/env python3
"""The layering rules, checked on the sources (header-only layers included, which the
compiler only checks through their users):
  - a file in src/<layer>/ includes "<other>/..." only for <other> = <layer> or a layer it
    depends on, directly or not, per the minigpu_layer(... DEPENDS ...) calls of
    src/CMakeLists.txt: the build's own graph, read, not restated;
  - no MPI call or type outside comm/ (and main.cpp): experiments reach MPI through comm/;
  - experiments/ use only the engine's interface (ENGINE_FOR_EXPERIMENTS): the runner, the
    plan and the statistics drive experiments, never the other way round;
  - no Kokkos backend or GPU runtime named outside core/backend*;
  - experiments/ and the distributed/ algorithms they run never read a clock (CLOCK_WORDS):
    the runner times cases and the engine's CalibrationClock times what a model needs.
Usage: check_layers.py SRC_DIR"""
import os
import re
import sys

BACKEND_WORDS = re.compile(r"\b(KOKKOS_ENABLE_(CUDA|HIP|SYCL)|__CUDACC__|__HIPCC__|Kokkos::(Cuda|HIP|SYCL)\w*|"
                           r"Kokkos::Experimental::(HIP|SYCL)\w*|cuda_runtime|cublas\w*|hip_runtime)\b")
# What of engine/ an experiment may include: the interface it implements and registers with,
# and the helpers that read its shared keys and build its case list and findings from its own data.
ENGINE_FOR_EXPERIMENTS = {"experiment.hpp", "registry.hpp", "phase_clock.hpp", "case_grid.hpp", "findings.hpp",
                          "comm_keys.hpp"}
CLOCK_WORDS = re.compile(r"\b(Clock::now|steady_clock|high_resolution_clock|system_clock|seconds_since|"
                         r"best_fenced_seconds|MPI_Wtime|omp_get_wtime|gettimeofday|clock_gettime)\b")
MPI_WORDS = re.compile(r"\bMPI_[A-Z][A-Za-z_]*\b|#include <mpi\.h>")


def layer_graph(cmake_text):
    graph = {}
    for m in re.finditer(r"^minigpu_layer\((\w+)(.*?)\)\n", cmake_text, re.S | re.M):
        deps = re.search(r"DEPENDS ([\w ]+?)(?: LINK| SOURCES|$)", " ".join(m.group(2).split()))
        graph[m.group(1)] = deps.group(1).split() if deps else []
    return graph


def reachable(graph, layer):
    seen, stack = set(), [layer]
    while stack:
        for dep in graph.get(stack.pop(), []):
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    return seen | {layer}


def code_only(text):
    """The text without comments and string literals, so prose may name anything."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def source_files(folder):
    """Paths under `folder` relative to it, subfolders included (experiments/transfer/...)."""
    for root, _, names in sorted(os.walk(folder)):
        for name in sorted(names):
            yield os.path.relpath(os.path.join(root, name), folder)


def main():
    src = sys.argv[1]
    with open(os.path.join(src, "CMakeLists.txt"), encoding="utf-8") as f:
        graph = layer_graph(f.read())
    if len(graph) < 5:
        print(f"found only {sorted(graph)} in src/CMakeLists.txt: is minigpu_layer still how layers are declared?")
        return 1
    errors = []
    for layer in sorted(graph):
        allowed = reachable(graph, layer)
        folder = os.path.join(src, layer)
        for name in source_files(folder):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            for m in re.finditer(r'#include "(\w+)/', text):
                if m.group(1) in graph and m.group(1) not in allowed:
                    errors.append(f"{layer}/{name}: includes {m.group(1)}/, a layer {layer} does not depend on")
            for m in re.finditer(r'#include "engine/([\w.]+)"', text):
                if layer == "experiments" and m.group(1) not in ENGINE_FOR_EXPERIMENTS:
                    errors.append(f"{layer}/{name}: includes engine/{m.group(1)}: experiments see only "
                                  f"{', '.join(sorted(ENGINE_FOR_EXPERIMENTS))}")
            code = code_only(text)
            if layer != "comm" and MPI_WORDS.search(code):
                errors.append(f"{layer}/{name}: uses MPI directly ({MPI_WORDS.search(code).group(0)}): go through comm/")
            if layer in ("experiments", "distributed") and CLOCK_WORDS.search(code):
                errors.append(f"{layer}/{name}: reads a clock ({CLOCK_WORDS.search(code).group(0)}): the runner "
                              "times cases and the engine's CalibrationClock what a model needs")
            if not (layer == "core" and name.startswith("backend")) and BACKEND_WORDS.search(code):
                errors.append(f"{layer}/{name}: names a backend ({BACKEND_WORDS.search(code).group(0)}): only core/backend* may")
    for e in errors:
        print(e)
    print(f"{len(graph)} layers checked, {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
