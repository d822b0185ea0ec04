#!/usr/bin/env python3
"""The build compiles for the CPU it runs on (-march=native), so code that branches on the
target's vector width or instructions (kHostVectorBytes, kHostBf16Dot, #if __AVX512F__, ...)
is compiled only for that CPU's branch. CI's machines differ (AVX-512 with BF16, AVX2 alone):
a bfloat16 test that compiled on one broke the build on the other. This parses every unity
batch that reaches such a branch (its header dependencies, from `ninja -t deps`, include a
project file that tests a CPU feature macro) with -fsyntax-only for the other of the two x86-64
classes CI's machines span: AVX2 alone (32-byte vectors) and AVX-512 with BF16 (64).
Usage: check_other_cpus.py BUILD_DIR
       check_other_cpus.py --self-test   (a made-up batch that compiles only with AVX-512 must
                                          fail under the AVX2 class, naming it, and pass once fixed)
Exit codes: 0 every batch parses for every class; 1 one does not; 77 skipped (not x86-64, or a
build without -march=native, which already fixes its target)."""
import concurrent.futures
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_sources_alone import alone_command  # noqa: E402  (its compile line, without outputs)

# One -march per class, with the macros that tell the classes apart.
CLASSES = {
    "x86-64-v2": ("SSE only", set()),
    "x86-64-v3": ("AVX2", {"__AVX2__"}),
    "skylake-avx512": ("AVX-512 without BF16", {"__AVX2__", "__AVX512F__"}),
    "sapphirerapids": ("AVX-512 with BF16", {"__AVX2__", "__AVX512F__", "__AVX512BF16__"}),
}
FEATURE = re.compile(r"__(AVX|SSE|ARM_FEATURE|ARM_NEON|FMA)\w*")


def native_class(compiler):
    macros = subprocess.run([compiler, "-march=native", "-dM", "-E", "-x", "c++", os.devnull],
                            capture_output=True, text=True, check=True).stdout
    have = {m for m in ("__AVX2__", "__AVX512F__", "__AVX512BF16__") if f"#define {m} " in macros}
    return next((march for march, (_, needs) in CLASSES.items() if needs == have), None)


def branching_objects(build_dir, source_root):
    """Objects whose headers include a project file that tests a CPU macro; None without Ninja."""
    proc = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"], capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    objects, obj, branches = set(), None, {}
    for line in proc.stdout.splitlines():
        if line and not line.startswith(" "):
            obj = line.split(":")[0]
        elif line.strip():
            path = os.path.realpath(os.path.join(build_dir, line.strip()))
            # The build tree's layers/ hold links to src/: realpath makes them the project's files.
            if path.startswith(source_root + os.sep) and path not in branches:
                with open(path, encoding="utf-8", errors="replace") as f:
                    branches[path] = bool(FEATURE.search(f.read()))
            if branches.get(path):
                objects.add(obj)
    return objects


def checks(build_dir, source_root, marches):
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    wanted = branching_objects(build_dir, source_root)
    for entry in entries:
        if "-march=native" not in entry["command"]:
            continue
        output = entry.get("output") or re.search(r"-o (\S+)", entry["command"]).group(1)
        if wanted is not None and output not in wanted:
            continue
        for march in marches:
            command = [f"-march={march}" if a == "-march=native" else a
                       for a in alone_command(entry["command"], entry["file"])]
            yield march, entry["file"], command, entry["directory"]


def run(check):
    march, source, command, directory = check
    proc = subprocess.run(command, cwd=directory, capture_output=True, text=True)
    return march, source, proc.returncode, proc.stderr


def check_all(todo):
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for march, source, code, stderr in pool.map(run, todo):
            if code != 0:
                failed.append((march, source))
                print(f"{source} does not compile for {CLASSES[march][0]} (-march={march}):\n{stderr[:3000]}")
    return failed


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "wide.cpp")
        command = f"c++ -std=c++17 -march=native -MD -MT wide.o -MF wide.o.d -o wide.o -c {source}"
        with open(os.path.join(tmp, "compile_commands.json"), "w", encoding="utf-8") as f:
            json.dump([{"directory": tmp, "command": command, "file": source, "output": "wide.o"}], f)
        results = []
        for body in ("static_assert(kBytes == 64, \"AVX-512 only\");\n", "static_assert(kBytes >= 16, \"\");\n"):
            with open(source, "w", encoding="utf-8") as f:
                f.write("#if defined(__AVX512F__)\nconstexpr int kBytes = 64;\n#elif defined(__AVX2__)\n"
                        "constexpr int kBytes = 32;\n#else\nconstexpr int kBytes = 16;\n#endif\n" + body)
            results.append(check_all(list(checks(tmp, tmp, ["x86-64-v3", "sapphirerapids"]))))
        if results != [[("x86-64-v3", source)], []]:
            print(f"self-test failed: AVX-512-only {results[0]}, fixed {results[1]}")
            return 1
    print("self-test passed: a batch that compiles for one class of CPU alone is caught")
    return 0


def main():
    if platform.machine() not in ("x86_64", "AMD64"):
        print(f"skipped: the classes checked are x86-64's, and this is {platform.machine()}")
        return 77
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    build_dir = os.path.realpath(sys.argv[1])
    with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
        cache = f.read()
    source_root = os.path.realpath(re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache, re.M).group(1))
    compiler = re.search(r"^CMAKE_CXX_COMPILER:\w+=(.*)$", cache, re.M).group(1)
    native = native_class(compiler)
    # One class, the farthest from this one of those CI's machines have (AVX2 alone, AVX-512 with
    # BF16): each class parsed takes this entry ~110 s on 2 cores (Zen 3, 2026-11-29).
    marches = ["x86-64-v3" if native in ("sapphirerapids", "skylake-avx512") else "sapphirerapids"]
    todo = list(checks(build_dir, source_root, marches))
    if not todo:
        print("skipped: no batch compiles with -march=native (MINIGPU_NATIVE_ARCH=OFF fixes the target)")
        return 77
    print(f"this CPU: {CLASSES[native][0] if native else 'another class'}; parsing {len(todo)} batch compiles "
          f"for {', '.join(CLASSES[m][0] for m in marches)}")
    failed = check_all(todo)
    print(f"{len(todo) - len(failed)} of {len(todo)} batch compiles parse for the other classes")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
