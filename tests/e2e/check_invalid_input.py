#!/usr/bin/env python3
"""Runs `minigpu run` on an invalid input and checks it is rejected properly: exit code 2,
one error line that names the file with line:col (unless the input says '# no-position')
and contains the text after each '# expect:' in the input, no results directory created and
nothing else touched (the working directory and the input's own directory are unchanged).
`--dry-run` must refuse it the same way: a dry run rejects all that a real run would.
A directory given as INPUT must be refused as such. An input with a '# own-output-dir' line
is run without --output-dir (it tests its own output_dir). An input with a '# pad-to-bytes: N'
line is run as a copy padded with comment lines to N bytes (too big to keep in the repository).
Usage: check_invalid_input.py [LAUNCHER...] MINIGPU INPUT"""
import os
import re
import subprocess
import sys
import tempfile


def error_lines_of(text):
    return [line for line in text.splitlines() if "error:" in line]


def snapshot(directory):
    """Names, sizes and modification times of everything directly in `directory`."""
    return {e.name: (e.stat(follow_symlinks=False).st_size, e.stat(follow_symlinks=False).st_mtime_ns)
            for e in os.scandir(directory)}


def main() -> int:
    *command, minigpu, input_path = sys.argv[1:]
    if os.path.isdir(input_path):  # a directory given as the input file
        lines = ["# expect: is a directory, not an input file"]
    else:
        with open(input_path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    expected = [line.split("expect:", 1)[1].strip() for line in lines if line.startswith("# expect:")]
    own_output_dir = "# own-output-dir" in lines
    positioned = "# no-position" not in lines and not os.path.isdir(input_path)
    input_dir = os.path.dirname(os.path.abspath(input_path))
    if not expected:
        print(f"{input_path}: no '# expect:' line")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = os.path.join(tmp, "results")
        override = [] if own_output_dir else ["--output-dir", out_dir]
        pad = [int(line.split(":", 1)[1]) for line in lines if line.startswith("# pad-to-bytes:")]
        if pad:
            padded = os.path.join(tmp, "input", os.path.basename(input_path))
            os.mkdir(os.path.dirname(padded))
            with open(input_path, "rb") as f:
                text = f.read()
            with open(padded, "wb") as f:
                f.write(text + b"# padding\n" * ((pad[0] - len(text)) // 10 + 1))
            input_path, input_dir = padded, os.path.dirname(padded)
        before = snapshot(input_dir)
        errors = []
        dry = subprocess.run(command + [minigpu, "run", input_path, "--dry-run"] + override,
                             cwd=tmp, capture_output=True, text=True, timeout=120)
        proc = subprocess.run(command + [minigpu, "run", input_path] + override,
                              cwd=tmp, capture_output=True, text=True, timeout=120)
        if dry.returncode != 2 or error_lines_of(dry.stderr) != error_lines_of(proc.stderr):
            errors.append(f"--dry-run: exit {dry.returncode} with {dry.stderr!r}, not the real run's refusal")
        if proc.returncode != 2:
            errors.append(f"exit code {proc.returncode}, expected 2")
        error_lines = error_lines_of(proc.stderr)
        if len(error_lines) != 1:
            errors.append(f"expected exactly one error line, got {len(error_lines)}")
        for text in expected:
            if not any(text in l for l in error_lines):
                errors.append(f"error does not mention {text!r}")
        if positioned and error_lines:
            where = re.escape(os.path.basename(input_path)) + r":\d+:\d+: "
            if not re.search(where, error_lines[0]):
                errors.append("the error does not name the file with line:col")
        if os.path.exists(out_dir) or set(os.listdir(tmp)) - {"results", "input"}:
            errors.append("something was written for an invalid input")
        if snapshot(input_dir) != before:
            errors.append(f"{input_dir} changed")
    if errors:
        print(f"{input_path}:\n  " + "\n  ".join(errors))
        print("stdout:", proc.stdout, "\nstderr:", proc.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
