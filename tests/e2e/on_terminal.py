#!/usr/bin/python3
"""Runs a command as a terminal runs a job: on a pseudo-terminal of its own, the foreground
process group of that terminal, its output copied to this script's stdout. SIGUSR1 to this
script types Ctrl-C there (the byte 0x03): the terminal's line discipline, not a kill(2) by the
test, sends SIGINT to whatever group is in the foreground, as a user's keystroke does. The exit
code is the command's (128+N if a signal ended it).
Usage: on_terminal.py COMMAND [ARG...]"""
import os
import pty
import signal
import sys

pid, master = pty.fork()  # the child: a new session, the pty its controlling terminal
if pid == 0:
    # A job started with & by a non-interactive shell inherits SIGINT ignored; a terminal's
    # shell starts its jobs with it at the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.execvp(sys.argv[1], sys.argv[1:])

signal.signal(signal.SIGUSR1, lambda *_: os.write(master, b"\x03"))
while True:
    try:
        data = os.read(master, 65536)
    except InterruptedError:
        continue
    except OSError:  # EIO: every process holding the terminal has closed it
        break
    if not data:
        break
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
while True:
    try:
        _, status = os.waitpid(pid, 0)
        break
    except InterruptedError:
        continue
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
