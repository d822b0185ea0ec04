"""Debian's python3-* packages (matplotlib, jsonschema, yaml, torch) live under /usr/bin/python3;
the python3 first on PATH may be another interpreter (pyenv, a venv) without them. One rule
for every script and test that needs such a package: import it, or re-run the same command
under Debian's interpreter, or stop with the apt line that installs it."""
import importlib
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"
_GUARD = "MINIGPU_SYSTEM_PYTHON_REEXEC"  # set before re-running: never loop
if os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) == os.path.realpath(SYSTEM_PYTHON):
    # Re-run and arrived: the guard has done its job, and left set it would stop this process's
    # children (minigpu report runs plot.py with the python3 on PATH) from re-running in turn.
    os.environ.pop(_GUARD, None)


def require(module, apt_package, exit_code=1, prefix=""):
    """The imported module; or this process replaced by the same command under SYSTEM_PYTHON
    when this interpreter lacks it; or exit `exit_code` naming the package to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if (os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
                and not os.environ.get(_GUARD)):
            os.environ[_GUARD] = "1"
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
        print(f"{prefix}{module} is missing: apt-get install {apt_package}", file=sys.stderr)
        sys.exit(exit_code)
