#!/usr/bin/env python3
"""`minigpu model` end to end. Usage: check_model.py CHECK MINIGPU SOURCE_DIR [MPIEXEC]
CHECK is one of:
  profile  the shipped H100 profile: a first line saying these are model figures, rows for
           p = 1 … 512, every efficiency in (0, 100], SUMMA's strong efficiency never rising;
           and tests/inputs/model/simple.yaml recomputed here by hand (row at every p, SUMMA
           on 2×2): the formulas of src/distributed (perfmodel::) written again, independently
  from     the run.json fixture: the header says the intra-node link stands in, gpus_per_node 2
  bad      a figure without source, a bare number, a misspelt key, a run.json without
           scaling_model: exit 2, one error line naming the file and the key
  plot     --plot writes a PNG
  mpi      under MPIEXEC -n 2 only rank 0 prints"""
import math
import os
import re
import subprocess
import sys
import tempfile

# Open MPI's --oversubscribe as its environment variable: MPICH's mpiexec refuses the flag.
os.environ.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")

ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)x(\d+)\s+(.*)$")


def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def tables(out):
    """{'strong'|'weak': {p: [numbers after the grid]}} from the printed tables."""
    found, current = {}, None
    for line in out.splitlines():
        if line.startswith("strong scaling") or line.startswith("weak scaling"):
            current = found.setdefault(line.split()[0], {})
        m = ROW.match(line)
        if m and current is not None:
            current[int(m.group(1))] = [float(x) for x in m.group(5).split()]
    return found


def fail(message, out=""):
    print("FAIL:", message)
    if out:
        print(out)
    sys.exit(1)


def bcast(alpha, beta, q, m):  # Chan et al. 2007: the cheaper of binomial and scatter+allgather
    if q == 1:
        return 0.0
    steps = math.ceil(math.log2(q))
    return min(steps * (alpha + m * beta), (steps + q - 1) * alpha + 2 * (q - 1) / q * m * beta)


def check_simple(minigpu, src):
    # simple.yaml: intra 1 µs + 1 GB/s, inter 10 µs + 0.1 GB/s, 4 GPUs per node, 1e12 flop/s.
    n, rate, e = 1024, 1e12, 4
    proc = run([minigpu, "model", "--profile", os.path.join(src, "tests/inputs/model/simple.yaml"),
                "--n", str(n), "--max-p", "16"])
    if proc.returncode != 0:
        fail(f"simple.yaml: exit {proc.returncode}", proc.stdout + proc.stderr)
    strong = tables(proc.stdout)["strong"]
    t1 = 2 * n ** 3 / rate
    for p, values in strong.items():
        alpha, beta = (1e-6, 1e-9) if p <= 4 else (1e-5, 1e-8)
        gather = 0 if p == 1 else (p - 1) * alpha + (p - 1) / p * n * n * e * beta  # ring allgather
        tp = gather + 2 * math.ceil(n / p) * n * n / rate
        want = 100 * t1 / (p * tp)
        if not math.isclose(values[1], want, rel_tol=1e-3):
            fail(f"simple.yaml: row efficiency at p={p} is {values[1]}, by hand {want:.6g}", proc.stdout)
    # SUMMA on 2×2 (one node): 4 panels of 256 (cuts at 0, 512 and every 256), blocks 512×512.
    comm = 2 * bcast(1e-6, 1e-9, 2, 512 * 256 * e)
    gemm = 2 * 512 * 512 * 256 / rate
    blocking, overlapped = 4 * (comm + gemm), comm + 3 * max(gemm, comm) + gemm
    for column, t4 in ((3, blocking), (5, overlapped)):
        want = 100 * t1 / (4 * t4)
        if not math.isclose(strong[4][column], want, rel_tol=1e-3):
            fail(f"simple.yaml: SUMMA column {column} at p=4 is {strong[4][column]}, by hand {want:.6g}", proc.stdout)


def check_profile(minigpu, src):
    profile = os.path.join(src, "inputs/hardware/h100_sxm.yaml")
    proc = run([minigpu, "model", "--profile", profile, "--n", "16384"])
    out = proc.stdout
    if proc.returncode != 0:
        fail(f"exit {proc.returncode}", out + proc.stderr)
    if not out.startswith("model figures, not measurements:") or "h100_sxm.yaml" not in out.splitlines()[0]:
        fail("the first line must say these are model figures and name the profile", out)
    strong = tables(out).get("strong", {})
    if sorted(strong) != [2 ** k for k in range(10)]:
        fail(f"strong rows for p = {sorted(strong)}, expected 1 … 512", out)
    for p, values in strong.items():
        efficiencies = values[1::2]
        if len(efficiencies) != 4 or not all(0 < x <= 100.0001 for x in efficiencies):
            fail(f"p={p}: efficiencies {efficiencies} not all in (0, 100]", out)
    for column, name in ((3, "summa"), (5, "summa_overlap")):
        series = [strong[p][column] for p in sorted(strong)]
        if any(b > a for a, b in zip(series, series[1:])):
            fail(f"{name} strong efficiency rises somewhere: {series}", out)
    check_simple(minigpu, src)


def check_from(minigpu, src):
    proc = run([minigpu, "model", "--from", os.path.join(src, "tests/inputs/model/run_one_node"), "--n", "4096",
                "--max-p", "64", "--mode", "both"])
    out = proc.stdout
    first = out.splitlines()[0] if out else ""
    if proc.returncode != 0 or "run.json" not in first or "intra-node figures stand in" not in first:
        fail(f"exit {proc.returncode}; first line must name run.json and say intra-node stands in", out + proc.stderr)
    t = tables(out)
    if sorted(t.get("strong", {})) != [1, 2, 4, 8, 16, 32, 64] or sorted(t.get("weak", {})) != sorted(t["strong"]):
        fail("strong and weak tables for p = 1 … 64 expected", out)
    if not re.search(r"^\s*64\s+32\s+8x8\s", out, re.M):  # 2 GPUs per node: 32 nodes
        fail("p=64 on 2 GPUs per node must show 32 nodes and grid 8x8", out)
    # A run over two nodes measured its inter-node link: shown, not stood in for; --gpus-per-node wins.
    proc = run([minigpu, "model", "--from", os.path.join(src, "tests/inputs/model/run_two_nodes"), "--dtype",
                "float64", "--max-p", "64", "--gpus-per-node", "8"])
    out = proc.stdout
    if (proc.returncode != 0 or "stand in" in out or "ping-pong between ranks 0 and 4" not in out
            or not re.search(r"^\s*64\s+8\s+8x8\s", out, re.M)):
        fail(f"run_two_nodes: exit {proc.returncode}; its inter-node link and 8 nodes at p=64 expected",
             out + proc.stderr)
    proc = run([minigpu, "model", "--from", os.path.join(src, "tests/inputs/model/run_two_nodes")])
    if proc.returncode != 2 or "run.json: key 'scaling_model.gemm.float32'" not in proc.stderr:
        fail("run_two_nodes has no float32 rate: --dtype float32 must exit 2 naming scaling_model.gemm.float32",
             proc.stdout + proc.stderr)


def check_bad(minigpu, src):
    cases = [
        (["--profile", "tests/inputs/model/no_source.yaml"], "no_source.yaml:11:12: key 'inter_node.alpha_s.source'"),
        (["--profile", "tests/inputs/model/bare_value.yaml"], "bare_value.yaml:8:3: key 'intra_node.bytes_per_s'"),
        (["--profile", "tests/inputs/model/bad_key.yaml"], "bad_key.yaml:10:3: key 'inter_node.latency_s'"),
        (["--from", "tests/inputs/model/run_without_model"], "run_without_model/run.json: key 'scaling_model'"),
        (["--from", "tests/inputs/model/run_interrupted"],
         "run_interrupted/run.json: key 'scaling_model': missing: the run's status is 'interrupted', and "
         "matmul_scaling writes it once all its cases have run (finish the run with --resume "),
        (["--profile", "inputs/hardware/h100_sxm.yaml", "--dtype", "float16"], "--dtype"),
        (["--profile", "inputs/hardware/h100_sxm.yaml", "--n", "100"], "--n: 100 leaves fewer rows than --max-p 512"),
    ]
    for args, text in cases:
        proc = subprocess.run([minigpu, "model"] + args, capture_output=True, text=True, cwd=src, timeout=60)
        lines = proc.stderr.splitlines()
        one_error = sum("error" in line for line in lines) <= 1  # CLI11's own usage lines say no "error"
        if proc.returncode != 2 or not lines or text not in lines[0] or not one_error or proc.stdout:
            fail(f"minigpu model {' '.join(args)}: exit {proc.returncode}, expected 2 and one line with {text!r}",
                 proc.stdout + proc.stderr)


def check_plot(minigpu, src):
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "model.png")
        proc = run([minigpu, "model", "--profile", os.path.join(src, "inputs/hardware/h100_sxm.yaml"), "--mode",
                    "both", "--plot", png])
        if proc.returncode != 0 or not os.path.isfile(png):
            fail(f"exit {proc.returncode}, no {png}", proc.stdout + proc.stderr)
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n" or os.path.getsize(png) < 10000:
                fail("not a PNG of a drawn figure")


def check_mpi(minigpu, src, mpiexec):
    proc = run([mpiexec, "-n", "2", minigpu, "model", "--profile",
                os.path.join(src, "inputs/hardware/h100_sxm.yaml"), "--max-p", "8"])
    if proc.returncode != 0 or proc.stdout.count("model figures, not measurements") != 1:
        fail(f"exit {proc.returncode}; the header must be printed once (rank 0 alone)", proc.stdout + proc.stderr)


def main(argv):
    check, minigpu, src = argv[0], argv[1], argv[2]
    checks = {"profile": check_profile, "from": check_from, "bad": check_bad, "plot": check_plot}
    if check == "mpi":
        check_mpi(minigpu, src, argv[3])
    else:
        checks[check](minigpu, src)
    print(f"check_model.py {check}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
