#!/usr/bin/env python3
"""scripts/system_python.py's require(..., install_missing=True), which plot.py (and through it
`minigpu report` and `run --plot`) uses so that the README's commands work on a machine that
scripts/run.sh set up without matplotlib: a missing module is installed through
scripts/common.sh's install_packages and imported; a package that does not bring it, or no
install_missing, ends with the apt line and the caller's exit code. apt-get and dpkg-query are
stand-ins first on PATH that log their arguments; the "package" drops a module on PYTHONPATH.
Usage: check_install_missing.py SCRIPTS_DIR   (skips, 77, where not root: sudo may ask)"""
import os
import subprocess
import sys
import tempfile

scripts = os.path.abspath(sys.argv[1])
if os.geteuid() != 0:
    print("SKIP: not root (install needs root or password-less sudo)")
    sys.exit(77)

failures = []
CHILD = ("import sys; sys.path.insert(0, sys.argv[1]); from system_python import require; "
         "m = require(sys.argv[2], sys.argv[3], exit_code=2, install_missing=sys.argv[4] == '1'); "
         "print('imported', m.VALUE)")


def attempt(tmp, module, package, install_missing):
    """(exit code, stdout, stderr, the stand-in apt-get's log lines)."""
    log = os.path.join(tmp, "apt.log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, PATH=os.path.join(tmp, "bin") + os.pathsep + os.environ["PATH"],
               PYTHONPATH=os.path.join(tmp, "site"), APT_LOG=log, SITE=os.path.join(tmp, "site"))
    env.pop("MINIGPU_SYSTEM_PYTHON_REEXEC", None)
    p = subprocess.run([sys.executable, "-c", CHILD, scripts, module, package, "1" if install_missing else "0"],
                       env=env, capture_output=True, text=True, timeout=60)
    calls = open(log).read().splitlines() if os.path.exists(log) else []
    return p.returncode, p.stdout, p.stderr, calls


def expect(what, ok, detail):
    if not ok:
        failures.append(f"{what}: {detail}")


with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "bin"))
    os.makedirs(os.path.join(tmp, "site"))
    # dpkg-query: nothing installed. apt-get: log; `install ... python3-minigpu-brings-it` writes
    # the module, any other package installs nothing.
    for name, body in (("dpkg-query", 'exit 1\n'),
                       ("apt-get", 'echo "$*" >> "$APT_LOG"\n'
                                   'for a; do [ "$a" = python3-minigpu-brings-it ] && '
                                   'echo "VALUE = 42" > "$SITE/minigpu_brought.py"; done\nexit 0\n')):
        path = os.path.join(tmp, "bin", name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)

    rc, out, err, calls = attempt(tmp, "minigpu_brought", "python3-minigpu-brings-it", True)
    expect("installed, then imported", rc == 0 and "imported 42" in out, f"rc {rc}, stdout {out!r}, stderr {err!r}")
    expect("installed, then imported: apt-get", any(c.split()[-1:] == ["python3-minigpu-brings-it"]
                                                    and c.startswith("install ") for c in calls), f"calls {calls}")

    brought = os.path.join(tmp, "site", "minigpu_brought.py")
    if os.path.exists(brought):
        os.remove(brought)
    rc, out, err, calls = attempt(tmp, "minigpu_brought", "python3-minigpu-brings-it", False)
    expect("no install_missing", rc == 2 and calls == [], f"rc {rc}, apt-get calls {calls}")
    expect("no install_missing: the apt line",
           "minigpu_brought is missing: apt-get install python3-minigpu-brings-it" in err, f"stderr {err!r}")

    rc, out, err, calls = attempt(tmp, "minigpu_never", "python3-minigpu-empty", True)
    expect("a package without the module", rc == 2 and any(c.startswith("install ") for c in calls),
           f"rc {rc}, calls {calls}")
    expect("a package without the module: the apt line",
           "minigpu_never is missing: apt-get install python3-minigpu-empty" in err, f"stderr {err!r}")

for f in failures:
    print("FAIL:", f)
print("install_missing:", "FAIL" if failures else "ok (3 cases)")
sys.exit(1 if failures else 0)
