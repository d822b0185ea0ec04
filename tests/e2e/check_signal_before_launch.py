#!/usr/bin/env python3
"""Ctrl-C in the second before the ranks exist must stop scripts/run.sh's run, not start it.

A Ctrl-C 50 ms after "[minigpu] running" once left all 123 cases of inputs/transfer.yaml running
behind a script that had already returned 1, unsignalled. Two holes, each tested here with a
stand-in launcher (MINIGPU_MPIEXEC) so that the signal lands where it must, every time:
- step: the signal reaches the script while a step before the launch runs (the build, a
  probe) and that step catches it and exits 0. Bash alone carries on after such a command; the
  script must end with 130 and never start the launcher.
- early: the launcher has started but has no ranks yet (mpirun before it forks them). The signal
  must still reach the launcher (here it records it and exits 1, as Open MPI's mpirun does), the
  script must return 130 and leave no launcher behind.
Each sends SIGINT to the whole process group, as a terminal does. Usage: check_signal_before_launch.py
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LAUNCHER = r"""#!/usr/bin/python3
# A stand-in for mpirun, with no children (pgrep -P finds no ranks): `--slow-step`, a step
# that catches SIGINT and exits 0; --version; else a launch that exits 1 on SIGINT.
import os, signal, sys, time
d = os.environ["DIR"]
def touch(name):
    open(os.path.join(d, name), "w").close()
def on_int(probe):
    def handler(*_):
        if probe:
            print("mpirun (Open MPI) 4.1.4")
            sys.exit(0)
        touch("launcher_got_sigint")
        sys.exit(1)
    return handler
if sys.argv[1:2] == ["--slow-step"]:
    signal.signal(signal.SIGINT, on_int(True))
    touch("stepping")
    time.sleep(10)
    sys.exit(0)
if sys.argv[1:2] == ["--version"]:
    print("mpirun (Open MPI) 4.1.4")
    sys.exit(0)
signal.signal(signal.SIGINT, on_int(False))
touch("launched")
time.sleep(30)
touch("launcher_ran_to_the_end")
"""


def wait_for(path, proc, seconds=20.0):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if os.path.exists(path):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.02)
    return False


def trial(name, work, slow_step):
    failures = []
    d = os.path.join(work, name)
    os.makedirs(d)
    launcher = os.path.join(d, "mpirun")
    with open(launcher, "w") as f:
        f.write(LAUNCHER)
    os.chmod(launcher, 0o755)
    env = dict(os.environ, DIR=d, MINIGPU_MPIEXEC=launcher, MINIGPU_LAUNCHER_FLAVOUR="")
    # scripts/run.sh's last line, as run.sh calls it, after a step when asked; a terminal's job:
    # a process group of its own.
    step = '"$MINIGPU_MPIEXEC" --slow-step; ' if slow_step else ""
    script = 'source "$0/scripts/common.sh"; ' + step + 'run_main_job 2 /bin/true; echo "[test] after the launch" >&2'
    proc = subprocess.Popen(["bash", "-c", script, ROOT], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    marker = os.path.join(d, "stepping" if slow_step else "launched")
    if not wait_for(marker, proc):
        proc.kill()
        return [f"{name}: the script never reached {os.path.basename(marker)}: {proc.communicate()[0]}"]
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out = proc.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return [f"{name}: the script did not end within 30 s of Ctrl-C"]
    if proc.returncode != 130:
        failures.append(f"{name}: exit code {proc.returncode}, expected 130")
    if "[test] after the launch" in out:
        failures.append(f"{name}: the script went on past the launch")
    if slow_step and os.path.exists(os.path.join(d, "launched")):
        failures.append(f"{name}: the launcher was started after Ctrl-C")
    if not slow_step and not os.path.exists(os.path.join(d, "launcher_got_sigint")):
        failures.append(f"{name}: the launcher never got the SIGINT")
    time.sleep(0.5)
    if os.path.exists(os.path.join(d, "launcher_ran_to_the_end")):
        failures.append(f"{name}: the launcher ran to its end")
    left = subprocess.run(["pgrep", "-f", launcher], capture_output=True, text=True).stdout.split()
    if left:
        failures.append(f"{name}: launcher processes left behind: {left}")
        for pid in left:
            os.kill(int(pid), signal.SIGKILL)
    if failures:
        failures.append(f"{name}: output:\n{out}")
    return failures


def main():
    with tempfile.TemporaryDirectory() as work:
        failures = trial("step", work, True) + trial("early", work, False)
    for f in failures:
        print("FAIL", f)
    if not failures:
        print("PASS: Ctrl-C before the ranks exist ends the script with 130 and leaves no launcher")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
