#!/usr/bin/env python3
"""Every command of README.md and docs/*.md, run as written.

A user copies commands from the docs into a results/ that already holds a day's runs. So the
commands run, in page order, from a copy of the repository (its tracked files; build/ is the
tested build, linked) whose results/ first gets two quickstart runs, one interrupted by Ctrl-C
and one matmul_scaling run. Each logical line of a ```bash block is one command, run with
`bash -c` from the copy's root, each distinct command once; it must exit 0 within its limit.

Placeholders are filled from that results/, the way a reader fills them: <A> and <B> the two
earlier quickstart runs' stamps, <stamp> the newest complete quickstart's, <run> the
matmul_scaling run, <name> a reference name. A command that cannot run here (a GPU, a Slurm
cluster, the network, an install under /opt, the test suite itself) is listed in NOT_HERE with
the reason and the test that covers it; an entry that matches no command fails the test, so the
list cannot go stale. A ```bash block that starts with #! is a script for another machine and
must be excused as a whole.

Usage: run_doc_commands.py MINIGPU_BUILD_DIR REPO_ROOT [--only SUBSTRING]
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_doc_links import markdown_files  # noqa: E402  (the pages the link check reads)

LIMIT_S = 600
# (page, text the command contains): why it cannot run on this machine, and what covers it.
NOT_HERE = {
    ("README.md", "scripts/test.sh"): "the test suite itself: CI runs it",
    ("docs/testing.md", "scripts/test.sh"): "the test suite itself: CI runs it",
    ("docs/clusters.md", "sbatch"): "needs a Slurm cluster: tests/slurm/ builds one per test",
    ("docs/clusters.md", "scripts/slurm/sweep.sh"): "needs a Slurm cluster: slurm_quickstart runs a sweep",
    ("docs/clusters.md", "results/sweep-"): "needs a sweep: slurm_quickstart plots its merged.csv",
    ("docs/clusters.md", "srun"): "needs a Slurm cluster: slurm_quickstart and slurm_two_nodes",
    ("docs/clusters.md", "--map-by slot:PE=8"): "needs 16 cores",
    ("docs/clusters.md", "--hostfile hosts"): "needs two nodes: slurm_two_nodes runs mpirun with a hostfile",
    ("docs/clusters.md", "module load"): "a site's module system (Cray PE): not on this machine",
    ("docs/clusters.md", "scripts/gpu/build_cuda.sh"): "builds a CUDA Kokkos (minutes of nvcc): cuda_compile",
    ("docs/clusters.md", "scripts/gpu/build_hip.sh"): "builds a HIP Kokkos and the project with hipcc (minutes): hip_compile",
    ("docs/gpus.md", "scripts/gpu/build_cuda.sh"): "builds a CUDA Kokkos (minutes of nvcc): cuda_compile",
    ("docs/gpus.md", "scripts/gpu/gpu_check.sh"): "needs a GPU: gpu_check_rehearsal runs it on emulated GPUs",
    ("docs/gpus.md", "scripts/gpu/build_prebuilt.sh"): "an hour of nvcc: gpu_check_rehearsal packs a host build",
    ("docs/gpus.md", "scripts/gpu/gpu_bundle.sh"): "downloads Debian packages",
    ("docs/install.md", "/opt/minigpu"): "installs under /opt: e2e_install installs into a temporary prefix",
    ("docs/install.md", "cd /anywhere"): "the install's walk-through: e2e_install runs it",
    ("docs/install.md", "spack"): "needs Spack: spack_recipe checks the recipe",
    ("docs/measuring.md", "#!/bin/bash"): "a Slurm prolog for an install under /opt",
    ("docs/profiling.md", "kokkos-tools"): "needs the network (git clone)",
    ("docs/profiling.md", "KOKKOS_PROFILE_LIBRARY"): "needs kokkos-tools built (git clone)",
    ("docs/profiling.md", "nsys"): "needs a GPU and Nsight Systems",
}
# (page, text): exit codes other than 0 that are the command's answer, not its failure.
VERDICTS = {
    ("docs/measuring.md", "--fail-below"): {0, 1},  # 1: a pair slower beyond noise, between two runs
}


def blocks(path):
    """(line, text, is_script) of each ```bash block's logical lines; a block that starts with
    #! as one script."""
    fence, lines, start = False, [], 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if stripped.startswith("```"):
                if fence and lines:
                    if lines[0][1].startswith("#!"):
                        yield lines[0][0], "".join(text for _, text in lines), True
                    else:
                        yield from logical_lines(lines)
                fence, lines = (not fence) and stripped[3:].strip() in ("bash", "sh", "shell"), []
                continue
            if fence:
                lines.append((number, line))


def logical_lines(lines):
    text, start = "", 0
    for number, line in lines:
        if not text:
            start = number
        text += line
        if line.rstrip().endswith("\\"):
            continue
        command = re.sub(r"(^|\s)#.*$", "", text.replace("\\\n", " ").strip()).strip()  # a trailing comment
        if command:
            yield start, command, False
        text = ""


def excuse(page, command, table):
    return next((why for (p, text), why in table.items() if p == page and text in command), None)


def run(command, cwd, env, limit=LIMIT_S, log=None):
    """bash -c COMMAND in its own process group; (exit code, seconds, output tail)."""
    started = time.monotonic()
    proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return 124, time.monotonic() - started, out.decode(errors="replace")[-3000:]
    return proc.returncode, time.monotonic() - started, out.decode(errors="replace")[-3000:]


def interrupted_run(minigpu, cwd, env):
    """A quickstart stopped by Ctrl-C (SIGINT to its process group) after its first case."""
    proc = subprocess.Popen([minigpu, "run", "inputs/quickstart.yaml", "--only", "devices,transfer"], cwd=cwd,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not glob.glob(os.path.join(cwd, "results", "quickstart-*.partial-*", "results.csv")):
        if time.monotonic() > deadline or proc.poll() is not None:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    return proc.wait(timeout=120)


def stamps(root, name):
    """The stamps of complete runs of `name` in results/, oldest first."""
    found = []
    for d in sorted(glob.glob(os.path.join(root, "results", name + "-*"))):
        m = re.fullmatch(re.escape(name) + r"-(\d{8}T\d{6}Z(-\d+)?)", os.path.basename(d))
        if m:
            found.append(m.group(1))
    return found


def prepare(minigpu, root, env):
    """results/ as after a day: two quickstarts, one interrupted, one matmul_scaling run."""
    steps = [f"{minigpu} run inputs/quickstart.yaml --only devices,transfer",
             f"sleep 1; {minigpu} run inputs/quickstart.yaml --only devices,lazy",
             f"mpirun -np 2 {minigpu} run inputs/matmul_scaling.yaml --set experiments.matmul_scaling.n=256"]
    for step in steps:
        rc, _, out = run(step, root, env)
        if rc != 0:
            sys.exit(f"FAIL: preparing results/: '{step}' exited {rc}:\n{out}")
    rc = interrupted_run(minigpu, root, env)
    if rc != 130 or not glob.glob(os.path.join(root, "results", "quickstart-*.interrupted")):
        sys.exit(f"FAIL: preparing results/: the interrupted quickstart exited {rc}: {os.listdir(root + '/results')}")
    quick = stamps(root, "quickstart")
    return {"A": quick[0], "B": quick[1], "run": "matmul_scaling-" + stamps(root, "matmul_scaling")[-1],
            "name": "doc_commands_check"}


def main(argv):
    build, repo = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    only = argv[3] if len(argv) > 3 and argv[2] == "--only" else None
    minigpu = os.path.join(build, "src", "minigpu")
    pages = [os.path.relpath(p, repo) if os.path.isabs(p) else p for p in markdown_files(repo)]
    pages = [p for p in pages if p == "README.md" or p.startswith("docs/") or p.startswith("inputs/")]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    problems, used, seen, ran = [], set(), set(), 0
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "minigpu")
        files = subprocess.run(["git", "-C", repo, "ls-files", "-z"], capture_output=True, check=True).stdout
        for rel in filter(None, files.decode().split("\0")):
            if os.path.isfile(os.path.join(repo, rel)):
                os.makedirs(os.path.dirname(os.path.join(root, rel)) or root, exist_ok=True)
                shutil.copy2(os.path.join(repo, rel), os.path.join(root, rel))
        os.symlink(build, os.path.join(root, "build"))
        fills = prepare(minigpu, root, env)
        fills["stamp"] = stamps(root, "quickstart")[-1]
        created = [p for p in ("/tmp/r",) if not os.path.exists(p)]
        try:
            for page in pages:
                for line, command, script in blocks(os.path.join(root, page)):
                    where = f"{page}:{line}"
                    why = excuse(page, command.splitlines()[0] if script else command, NOT_HERE)
                    if why:
                        used.update(k for k in NOT_HERE if k[0] == page and k[1] in command)
                        print(f"not here  {where}: {command.splitlines()[0][:80]} ({why})")
                        continue
                    if script:
                        problems.append(f"{where}: a script block (#!) neither run nor excused in NOT_HERE")
                        continue
                    filled = re.sub(r"<([\w-]+)>", lambda m: fills.get(m.group(1), m.group(0)), command)
                    if re.search(r"<[\w-]+>", filled):
                        problems.append(f"{where}: '{command}': a placeholder this test cannot fill")
                        continue
                    if filled in seen or (only and only not in filled):
                        continue
                    seen.add(filled)
                    rc, took, out = run(filled, root, env)
                    ran += 1
                    allowed = excuse(page, command, VERDICTS) or {0}
                    print(f"{'ok' if rc in allowed else 'FAILED':8}  {where}: {filled[:100]} (exit {rc}, {took:.0f} s)",
                          flush=True)
                    if rc not in allowed:
                        problems.append(f"{where}: '{filled}' exited {rc}:\n{out}")
        finally:
            for p in created:
                shutil.rmtree(p, ignore_errors=True)
    if not only:
        for key in sorted(set(NOT_HERE) - used):
            problems.append(f"NOT_HERE entry {key} matches no command: remove it")
    for p in problems:
        print(f"FAIL {p}")
    print(f"{ran} command(s) run, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    sys.exit(main(sys.argv[1:]))
