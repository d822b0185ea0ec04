#!/usr/bin/env python3
"""A GPU input (run.require_gpu: true) on a build or node without a real GPU must exit 2 with
one error line naming the key, the build's Kokkos backends and the node's GPU count, write
nothing, and refuse emulated GPUs too. Skipped (77) where this build sees a real GPU.
Usage: check_gpu_input_refused.py MINIGPU INPUT"""
import os
import re
import subprocess
import sys
import tempfile


def run(minigpu, input_path, env, cwd):
    out_dir = os.path.join(cwd, "results")
    return subprocess.run([minigpu, "run", input_path, "--output-dir", out_dir], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def main() -> int:
    minigpu, input_path = sys.argv[1:]
    env = dict(os.environ, MINIGPU_EMULATE_GPUS="")
    report = subprocess.run([minigpu, "devices"], capture_output=True, text=True, env=env, timeout=60).stdout
    if re.search(r"num_gpus\(\)\s+= [1-9]", report):
        print("skipped: this build sees a real GPU, so the input is valid here")
        return 77
    errors = []
    for label, extra in [("no GPU", {}), ("emulated GPUs", {"MINIGPU_EMULATE_GPUS": "2"})]:
        with tempfile.TemporaryDirectory() as tmp:
            proc = run(minigpu, input_path, dict(env, **extra), tmp)
            lines = [l for l in proc.stderr.splitlines() if "error:" in l]
            want = ["key 'run.require_gpu'", "needs a real GPU"]
            want += ["emulated"] if extra else ["backends are", "GPUs"]
            if proc.returncode != 2:
                errors.append(f"{label}: exit code {proc.returncode}, expected 2")
            if len(lines) != 1:
                errors.append(f"{label}: expected one error line, got {len(lines)}: {proc.stderr!r}")
            for text in want:
                if not any(text in l for l in lines):
                    errors.append(f"{label}: error does not mention {text!r}: {lines}")
            if os.listdir(tmp):
                errors.append(f"{label}: something was written: {os.listdir(tmp)}")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
