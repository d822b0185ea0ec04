#!/usr/bin/python3
"""The chapter's experiments written in PyTorch as the D2L "GPUs" notebook writes them, sized by
a miniGPU input, so each miniGPU row has a framework row measured on the same device.
    torch_reference.py INPUT.yaml OUT.csv [--device cpu|cuda] [--threads N] [--repetitions N]
        [--warmups N] [--k K]
Rows carry miniGPU's own columns (experiment, its params, device, dtype): scripts/torch_compare.py
joins them with a results.csv. A row this device cannot run (pinned memory or k GPUs without
CUDA, torch.compile before PyTorch 2) is written with `skipped` saying why, never measured.
Every measured row is verified against numpy (or, for copies, the bytes themselves).
Exit 0; 2 for a bad input; 3 when the CSV is written but rows failed verification (each named on
stderr as FAIL: the peer's own wrong answer, as PyTorch 1.13's bfloat16 matmul on a CPU without
AVX512_BF16, max rel err 0.3 at n = 1024); 1 when the script itself failed."""
import argparse
import csv
import os
import re
import sys


def blas_threads(argv):
    """miniGPU's rule for one process (every CPU it may run on, unless OPENBLAS_NUM_THREADS or
    OMP_NUM_THREADS says), or --threads. Set before torch loads: Debian's torch calls OpenBLAS,
    which reads its thread count only then and ignores torch.set_num_threads."""
    threads = (os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS")
               or str(len(os.sched_getaffinity(0))))
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            threads = argv[i + 1]
        elif arg.startswith("--threads="):
            threads = arg.split("=", 1)[1]
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = threads
    return threads


# --help before torch loads (seconds, and where it is not installed, an ImportError).
if sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)
THREADS = blas_threads(sys.argv)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402  (after the thread count is in the environment)
import torch  # noqa: E402
import yaml  # noqa: E402
from torch_harness import DTYPES, Bench, check_product, loaded_blas, rel_err, row, verdict  # noqa: E402
from torch_linear import linear  # noqa: E402

UNITS = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
         "KB": 10**3, "kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
# Each experiment's keys and miniGPU's defaults (inputs/README.md).
DEFAULTS = {
    "transfer": {"sizes": [1 << (10 + 2 * i) for i in range(11)], "directions": ["h2d", "d2h", "d2d"],
                 "host_memory": ["pageable", "pinned"], "chunks": [1, 16, 256]},
    "lazy": {"elements": 10**8},
    "matmul": {"sizes": [16, 32, 64, 128, 256, 512, 1024], "devices": ["cpu", "gpu"], "cpu_max_size": 4096},
    "logging": {"n": 100, "steps": 1000},
    "linear": {"in_features": 8, "samples": 4096, "batch_size": 64, "epochs": 3, "lr": 0.2},
    "multi_gpu_concurrency": {"n": 256, "multiplies_per_gpu": 1},
}


def parse_bytes(text):
    m = re.fullmatch(r"\s*([0-9.eE+]+)\s*([A-Za-z]*)\s*", str(text))
    if not m or m.group(2) not in UNITS:
        raise ValueError(f"not a byte size: {text!r}")
    return int(float(m.group(1)) * UNITS[m.group(2)])


def transfer(cfg, ctx, dtypes):
    """Copies of `bytes` as `chunks` pieces: h2d and d2h between host and device, d2d within it."""
    dev, bench, out = ctx["device"], ctx["bench"], []
    for direction in cfg["directions"]:
        for kind in cfg["host_memory"] if direction != "d2d" else ["-"]:
            for size in map(parse_bytes, cfg["sizes"]):
                for k in cfg["chunks"]:
                    params = {"direction": direction, "host_memory": kind, "bytes": size, "chunks": k}
                    case = f"{direction} {kind} {size} B x{k}"
                    if kind == "pinned" and dev.type != "cuda":
                        out.append(row("transfer", case, params, ctx["name"], "-",
                                       skipped="pinned host memory needs CUDA (pin_memory)"))
                        continue
                    if k > size:
                        continue  # miniGPU runs no copy of less than a byte per chunk either
                    host = torch.randint(0, 256, (size,), dtype=torch.uint8)
                    if kind == "pinned":
                        host = host.pin_memory()
                    src = host.to(dev) if direction in ("d2h", "d2d") else host
                    dst = (torch.empty(size, dtype=torch.uint8, pin_memory=kind == "pinned")
                           if direction == "d2h" else torch.empty(size, dtype=torch.uint8, device=dev))
                    pieces = list(zip(dst.chunk(k), src.chunk(k)))

                    def copy():
                        for d, s in pieces:
                            d.copy_(s, non_blocking=kind == "pinned")
                    times = bench.time(copy)
                    ok = bool(torch.equal(dst.cpu(), host))
                    out.append(row("transfer", case, params, ctx["name"], "-", times, (size, 0),
                                   (ok, "bytes equal the source" if ok else "bytes differ from the source")))
    return out


def lazy(cfg, ctx, dtypes):
    """y = x*x - 0.5; z = y*y*y - 0.2, timed fenced, unfenced, with y sent to the host and back,
    and fused by torch.compile (PyTorch 2) where it exists."""
    dev, bench, n, out = ctx["device"], ctx["bench"], int(float(cfg["elements"])), []
    for dtype in dtypes:
        torch.manual_seed(2024)
        x = torch.rand(n, dtype=DTYPES[dtype], device=dev) * 2 - 1
        state = {}

        def chain(detour=False):
            y = x * x - 0.5
            if detour:
                y = y.cpu().to(dev)
            state["z"] = y * y * y - 0.2
        compiled, why = None, f"torch.compile needs PyTorch 2 (this is {torch.__version__})"
        if hasattr(torch, "compile"):
            try:  # compiles here (Triton on a GPU, a C++ compiler on the CPU), or says why not
                compiled = torch.compile(lambda v: (v * v - 0.5) ** 3 - 0.2)
                compiled(x)
            except Exception as e:  # noqa: BLE001  (any backend failure is a reason to skip)
                compiled, why = None, f"torch.compile failed: {str(e).splitlines()[0][:120]}"
        size = x.element_size()
        for variant, fn, fence, moved in [("fenced", chain, True, 4), ("unfenced", chain, False, 4),
                                          ("host_detour", lambda: chain(True), True, 6),
                                          ("fused", lambda: state.update(z=compiled(x)), True, 2)]:
            params = {"variant": variant, "elements": n}
            if variant == "fused" and compiled is None:
                out.append(row("lazy", variant, params, ctx["name"], dtype, skipped=why))
                continue
            times = bench.time(fn, fence_after=fence)
            xs = x.cpu().double().numpy()
            check = verdict(rel_err(state["z"].cpu().numpy(), (xs * xs - 0.5) ** 3 - 0.2), dtype)
            out.append(row("lazy", variant, params, ctx["name"], dtype, times, (moved * n * size, 5 * n), check))
    return out


def matmul(cfg, ctx, dtypes):
    """C = A @ B for each n, on the CPU and on the GPU when the input asks for both."""
    bench, out = ctx["bench"], []
    for place in cfg["devices"]:
        dev = torch.device("cpu") if place == "cpu" else ctx["device"]
        name = "cpu" if place == "cpu" else ctx["name"]
        for dtype in dtypes:
            for n in cfg["sizes"]:
                params = {"n": n, "variant": "torch"}
                if place == "gpu" and dev.type != "cuda":
                    out.append(row("matmul", f"n={n}", params, "gpu", dtype,
                                   skipped="no CUDA device: PyTorch's try_gpu() would fall back to the CPU row"))
                    continue
                if dev.type == "cpu" and n > cfg["cpu_max_size"]:
                    continue
                if dev.type == "cpu" and dtype == "float16":  # PyTorch 1.13: addmm not implemented for 'Half'
                    out.append(row("matmul", f"n={n}", params, name, dtype,
                                   skipped=f"PyTorch {torch.__version__} has no float16 matmul on the CPU"))
                    continue
                torch.manual_seed(n)
                a, b = (torch.rand(n, n, dtype=DTYPES[dtype], device=dev) for _ in range(2))
                work = (3 * n * n * a.element_size(), 2.0 * n**3)
                state = {}
                times = bench.time(lambda: state.update(c=a @ b))
                out.append(row("matmul", f"n={n}", params, name, dtype, times, work,
                               check_product(a, b, state["c"], dtype)))
                if dtype == "float32" and dev.type == "cuda" and "vendor_tf32" in cfg.get("variants", []):
                    # miniGPU's vendor_tf32 row: the same product with PyTorch's TF32 switch on.
                    torch.backends.cuda.matmul.allow_tf32 = True
                    try:
                        times = bench.time(lambda: state.update(c=a @ b))
                    finally:
                        torch.backends.cuda.matmul.allow_tf32 = False
                    out.append(row("matmul", f"n={n}", {"n": n, "variant": "torch_tf32"}, name, dtype, times, work,
                                   check_product(a, b, state["c"], "tf32")))
                if dev.type == "cpu" and dtype in ("float32", "float64"):  # numpy's `@` on the same arrays
                    an, bn = a.numpy(), b.numpy()
                    times = bench.time(lambda: state.update(c=an @ bn))
                    out.append(row("matmul", f"n={n}", {"n": n, "variant": "numpy"}, name, dtype, times, work,
                                   check_product(a, b, torch.from_numpy(state["c"]), dtype)))
    return out


def logging(cfg, ctx, dtypes):
    """Exercise 3: Y = A @ X; log 1/||Y||; X = Y / ||Y||, the log read with .item() every step
    or kept in a device tensor copied once. In bfloat16 and float16 as miniGPU runs them (mixed
    precision): A, X and Y in the 16-bit type, the norm summed in float32 and the log float32."""
    dev, bench, n, steps, out = ctx["device"], ctx["bench"], cfg["n"], cfg["steps"], []
    for dtype in dtypes:
        modes = ("sync_each_step", "device_log")
        params = {"n": n, "steps": steps, "kernel": "torch"}
        if dev.type == "cpu" and dtype == "float16":  # PyTorch 1.13: addmm not implemented for 'Half'
            out += [row("logging", mode, dict(params, mode=mode), ctx["name"], dtype,
                        skipped=f"PyTorch {torch.__version__} has no float16 matmul on the CPU") for mode in modes]
            continue
        low = dtype in ("bfloat16", "float16")
        torch.manual_seed(11)
        a, x0 = (torch.rand(n, n, dtype=DTYPES[dtype], device=dev) for _ in range(2))
        log_dtype = torch.float32 if low else a.dtype
        an, xn, want = a.cpu().double().numpy(), x0.cpu().double().numpy(), []
        for _ in range(min(steps, 50)):
            y = an @ xn
            want.append(1 / np.linalg.norm(y))
            xn = y * want[-1]
        for mode in modes:
            # The chapter's loop ("torch"), and the same as a practised user writes it
            # ("torch_out": preallocated out= buffers, the scaling in place), PyTorch at its best.
            for kernel in ("torch", "torch_out"):
                state = {}

                def loop():
                    log = [] if mode == "sync_each_step" else torch.empty(steps, dtype=log_dtype, device=dev)
                    if kernel == "torch":
                        x = x0
                        for t in range(steps):
                            y = a @ x
                            inv = 1 / torch.linalg.norm(y, dtype=log_dtype)
                            if mode == "sync_each_step":
                                log.append(inv.item())
                            else:
                                log[t] = inv
                            x = y * inv
                    else:
                        x, ys = x0, (torch.empty_like(x0), torch.empty_like(x0))
                        norm = torch.empty((), dtype=log_dtype, device=dev)
                        for t in range(steps):
                            y = ys[t % 2]
                            torch.matmul(a, x, out=y)
                            torch.linalg.vector_norm(y, dtype=log_dtype, out=norm)
                            norm.reciprocal_()
                            if mode == "sync_each_step":
                                log.append(norm.item())
                            else:
                                log[t] = norm
                            x = y.mul_(norm)
                    state["log"] = np.asarray(log if mode == "sync_each_step" else log.cpu().numpy())
                times = bench.time(loop)
                check = verdict(rel_err(state["log"][:len(want)], want), dtype)
                size, entry = a.element_size(), torch.empty(0, dtype=log_dtype).element_size()
                case = mode if kernel == "torch" else mode + " out="
                out.append(row("logging", case, dict(params, mode=mode, kernel=kernel), ctx["name"], dtype, times,
                               (steps * (4 * n * n * size + 2 * entry), steps * (2.0 * n**3 + 3 * n * n)), check))
    return out


def multi_gpu_concurrency(cfg, ctx, dtypes):
    """Exercise 4 as miniGPU times it, all in each repetition: k products of n x n on one GPU in
    turn, one on each of the k GPUs to warm them, then one on each at once."""
    bench, n, per, k, out = ctx["bench"], cfg["n"], cfg["multiplies_per_gpu"], ctx["k"], []
    for dtype in dtypes:
        params = {"k": k, "n": n, "multiplies_per_gpu": per, "kernel": "torch"}
        case = f"k={k} n={n}"
        if torch.cuda.device_count() < max(k, 1) or ctx["device"].type != "cuda":
            out.append(row("multi_gpu_concurrency", case, params, ctx["name"], dtype,
                           skipped=f"needs {k} CUDA device(s); {torch.cuda.device_count()} visible"))
            continue
        devs = [torch.device("cuda", i) for i in range(k)]
        torch.manual_seed(n)
        pairs = [tuple(torch.rand(n, n, dtype=DTYPES[dtype], device=d) for _ in range(2)) for d in devs]
        results = [None] * k

        def products(count, ranks):
            for i in ranks:
                a, b = pairs[i]
                for _ in range(count):
                    results[i] = a @ b
            for i in ranks:
                torch.cuda.synchronize(devs[i])

        def run():
            products(per * k, [0])
            products(1, range(k))
            products(per, range(k))
        times = bench.time(run)
        a, b = pairs[-1]
        check = check_product(a, b, results[-1], dtype)
        multiplies = 2 * k * per + k
        out.append(row("multi_gpu_concurrency", case, params, ctx["name"], dtype, times,
                       (3 * n * n * a.element_size() * multiplies, 2.0 * n**3 * multiplies), check))
    return out


def unmatched(reason):
    return lambda cfg, ctx, dtypes: [row(cfg["name"], "-", {}, ctx["name"], "-", skipped=reason)]


EXPERIMENTS = {"transfer": transfer, "lazy": lazy, "matmul": matmul, "logging": logging, "linear": linear,
               "multi_gpu_concurrency": multi_gpu_concurrency,
               "devices": unmatched("a device listing: nothing is timed"),
               "matmul_scaling": unmatched("MPI-distributed GEMM: not in the chapter's notebook")}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--threads", type=int, default=int(THREADS), help="miniGPU's rule: every CPU of this process unless the env says")
    p.add_argument("--repetitions", type=int)
    p.add_argument("--warmups", type=int)
    p.add_argument("--k", type=int, default=max(torch.cuda.device_count(), 1), help="GPUs for exercise 4")
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print(f"{args.input}: --device cuda: this PyTorch sees no CUDA device", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    # FP32 products in FP32 like cuBLAS SGEMM in miniGPU, never TF32 tensor cores.
    torch.backends.cuda.matmul.allow_tf32 = False
    with open(args.input, encoding="utf-8") as f:
        doc = yaml.safe_load(f) or {}
    run = doc.get("run") or {}
    device = torch.device("cuda", 0) if args.device == "cuda" else torch.device("cpu")
    base_name = "gpu:0" if args.device == "cuda" else "cpu"
    ctx = {"k": args.k}
    rows = []
    for i, entry in enumerate(doc.get("experiments") or []):
        name = entry.get("name")
        if name not in EXPERIMENTS:
            print(f"{args.input}: experiments[{i}].name: unknown experiment {name!r}", file=sys.stderr)
            return 2
        cfg = {**DEFAULTS.get(name, {}), **entry}
        get = lambda key, default: cfg.get(key, run.get(key, default))  # noqa: E731
        # An experiment's `device: cpu` runs on the CPU here too; auto, gpu and gpu:N on --device.
        on_cpu = str(cfg.get("device", "auto")) == "cpu"
        ctx.update(device=torch.device("cpu") if on_cpu else device, name="cpu" if on_cpu else base_name)
        ctx["bench"] = Bench(ctx["device"], args.warmups if args.warmups is not None else get("warmups", 1),
                             args.repetitions or get("repetitions", 5), float(get("max_time_s", 0)))
        dtypes = cfg.get("dtypes") or [run.get("dtype", "float32")]
        rows += EXPERIMENTS[name](cfg, ctx, dtypes)
    columns = []
    for r in rows:
        columns += [k for k in r if k not in columns]
    tail = ["reps", "min_s", "median_s", "mean_s", "max_s", "work_bytes", "work_flops", "gbps", "gflops",
            "verified", "check", "skipped"]
    # Each row names its peer's configuration: the framework, the BLAS and kernel set under it, threads.
    columns = [c for c in columns if c not in tail] + tail + ["peer", "torch", "blas", "threads"]
    blas = loaded_blas()
    with open(args.output, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns, restval="")
        w.writeheader()
        for r in rows:
            peer = f"numpy {np.__version__}" if r.get("variant") == "numpy" else f"PyTorch {torch.__version__}"
            w.writerow({**r, "peer": peer, "torch": torch.__version__, "blas": blas,
                        "threads": torch.get_num_threads()})
    failed = [r["case"] for r in rows if r.get("verified") == "false"]
    for case in failed:
        print(f"FAIL {case}: not verified", file=sys.stderr)
    return 3 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
