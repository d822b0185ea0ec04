"""Debian's python3-* packages (matplotlib, jsonschema, yaml, torch) live under /usr/bin/python3;
the python3 first on PATH may be another interpreter (pyenv, a venv) without them. One rule
for every script and test that needs such a package: import it, or re-run the same command
under Debian's interpreter, or (the user-facing scripts, install_missing=True) install it as the shell
scripts do, or stop with the apt line that installs it."""
import importlib
import os
import shutil
import subprocess
import sys

SYSTEM_PYTHON = "/usr/bin/python3"
_GUARD = "MINIGPU_SYSTEM_PYTHON_REEXEC"  # set before re-running: never loop
if os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) == os.path.realpath(SYSTEM_PYTHON):
    # Re-run and arrived: the guard has done its job, and left set it would stop this process's
    # children (minigpu report runs plot.py with the python3 on PATH) from re-running in turn.
    os.environ.pop(_GUARD, None)


def install(apt_package):
    """apt-get install `apt_package` through scripts/common.sh's install_packages (the README's
    promise: each command installs what it lacks), where that needs no one to answer: as root, or
    with sudo that asks no password (a batch job must not wait on a prompt). True if it ran."""
    if not shutil.which("apt-get"):
        return False
    if os.geteuid() != 0 and not (shutil.which("sudo") and subprocess.run(
            ["sudo", "-n", "true"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0):
        return False
    common = os.path.join(os.path.dirname(os.path.abspath(__file__)), "common.sh")
    return subprocess.run(["bash", "-c", 'source "$1" && install_packages "$2"', "install", common,
                           apt_package], stdout=sys.stderr).returncode == 0


def require(module, apt_package, exit_code=1, prefix="", install_missing=False):
    """The imported module; or this process replaced by the same command under SYSTEM_PYTHON
    when this interpreter lacks it; or, with install_missing, the module once `apt_package` is
    installed; or exit `exit_code` naming the package to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if (os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
                and not os.environ.get(_GUARD)):
            os.environ[_GUARD] = "1"
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
        if install_missing and install(apt_package):
            importlib.invalidate_caches()  # the package's directory is new since this interpreter began
            try:
                return importlib.import_module(module)
            except ImportError:
                pass
        print(f"{prefix}{module} is missing: apt-get install {apt_package}", file=sys.stderr)
        sys.exit(exit_code)
