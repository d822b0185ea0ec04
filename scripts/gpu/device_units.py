#!/usr/bin/env python3
"""The object files a GPU compile check compiles, one per line, from a build's
compile_commands.json: every translation unit of the library and the programs, and of the tests
only those whose own sources hold device code (a test that only calls the library's kernels
instantiates what the library's units already put through the device compiler).
  device_units.py COMPILE_COMMANDS.json TESTS_DIR
  device_units.py --self-test     checks the choice on a made-up build"""
import json
import os
import re
import shlex
import sys
import tempfile

DEVICE_CODE = re.compile(r"KOKKOS_LAMBDA|KOKKOS_(INLINE_)?FUNCTION|Kokkos::parallel_|__global__|__device__|"
                         r"KOKKOS_ENABLE_(CUDA|HIP|SYCL)")


def own_sources(unit):
    """The files a unity batch includes, or the unit itself."""
    if "/Unity/" not in unit:
        return [unit]
    with open(unit) as f:
        return re.findall(r'#include "([^"]+)"', f.read())


def device_units(commands, tests):
    tests = os.path.realpath(tests) + os.sep
    chosen = []
    for entry in json.load(open(commands)):
        args = shlex.split(entry["command"])
        obj = args[args.index("-o") + 1]
        sources = [os.path.realpath(os.path.join(entry["directory"], s)) for s in own_sources(entry["file"])]
        if sources and all(s.startswith(tests) for s in sources):
            if not any(DEVICE_CODE.search(open(s, errors="replace").read()) for s in sources):
                continue
        chosen.append(obj)
    return chosen


def self_test():
    with tempfile.TemporaryDirectory() as root:
        files = {"src/kernel.cpp": "void f() {}\n", "tests/plain.cpp": "TEST(A, B) { f(); }\n",
                 "tests/device.cpp": "auto g = KOKKOS_LAMBDA(int i) {};\n"}
        for name, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            open(os.path.join(root, name), "w").write(text)
        units = []
        for name, members in (("lib", ["src/kernel.cpp"]), ("plain", ["tests/plain.cpp"]),
                              ("device", ["tests/plain.cpp", "tests/device.cpp"])):
            unit = os.path.join(root, "build", name, "Unity", "unity_0_cxx.cxx")
            os.makedirs(os.path.dirname(unit))
            open(unit, "w").write("".join(f'#include "{os.path.join(root, m)}"\n' for m in members))
            units.append({"directory": os.path.join(root, "build"), "file": unit,
                          "command": f"c++ -o {name}.o -c {unit}"})
        units.append({"directory": os.path.join(root, "build"), "file": os.path.join(root, "tests/plain.cpp"),
                      "command": "c++ -o alone.o -c ../tests/plain.cpp"})
        json.dump(units, open(os.path.join(root, "compile_commands.json"), "w"))
        got = device_units(os.path.join(root, "compile_commands.json"), os.path.join(root, "tests"))
        if got != ["lib.o", "device.o"]:
            print(f"device_units chose {got}, expected ['lib.o', 'device.o']")
            return 1
    print("self-test passed: library units and tests with device code chosen, other tests left out")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__)
        sys.exit(0)
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    print("\n".join(device_units(sys.argv[1], sys.argv[2])))
