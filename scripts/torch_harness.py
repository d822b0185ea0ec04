"""What scripts/torch_reference.py's experiments share: the runner's timing rules, the CSV row,
and verification against numpy. Imported after the BLAS thread count is in the environment."""
import time

import numpy as np
import torch

DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16,
          "float16": torch.float16}


def loaded_blas():
    """The BLAS this process loaded (torch's and numpy's CPU products call it), with OpenBLAS's
    version and kernel set: "OpenBLAS 0.3.21 (Cooperlake kernels)". Figures from two BLAS, or two
    kernel sets of one, never compare, so every row says which served it."""
    import ctypes
    import re
    with open("/proc/self/maps", encoding="utf-8") as f:
        paths = sorted(set(re.findall(r"(/\S*lib(?:open)?blas\S*\.so\S*)", f.read())))
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_corename.restype = lib.openblas_get_config.restype = ctypes.c_char_p
            version = re.search(r"OpenBLAS ([0-9.]+)", lib.openblas_get_config().decode())
            return (f"OpenBLAS {version.group(1) if version else '?'} "
                    f"({lib.openblas_get_corename().decode()} kernels)")
        except (OSError, AttributeError):
            continue
    return ", ".join(paths) or "no BLAS loaded"
# Below float (inputs in [0, 1], sums in float): one rounding of C plus float's sums, about
# miniGPU's bounds at n <= 10000 (kernels/matmul_check.hpp); tf32: two TF32 ulps besides.
TOLERANCE = {"float32": 1e-3, "float64": 1e-9, "bfloat16": 6e-3, "float16": 2e-3, "tf32": 3e-3}


class Bench:
    """Times callables the way miniGPU's runner does: warm-ups dropped, a fence before the
    clock starts and (unless told not to) before it stops, repetitions until max_time_s."""

    def __init__(self, device, warmups, repetitions, max_time_s):
        self.device, self.warmups, self.repetitions, self.max_time_s = device, warmups, repetitions, max_time_s

    def fence(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def time(self, run, fence_after=True):
        for _ in range(self.warmups):
            run()
        times, begin = [], time.perf_counter()
        while len(times) < self.repetitions or (time.perf_counter() - begin < self.max_time_s
                                                 and len(times) < 100000):
            self.fence()  # an unfenced repetition's work must not spill into the next one's clock
            t0 = time.perf_counter()
            run()
            if fence_after:
                self.fence()
            times.append(time.perf_counter() - t0)
        self.fence()
        return sorted(times)


def row(experiment, case, params, device, dtype, times=None, work=(0, 0), check=(False, ""), skipped=""):
    r = {"experiment": experiment, "case": case, **{k: str(v) for k, v in params.items()},
         "device": device, "dtype": dtype, "skipped": skipped}
    if times:
        median = times[len(times) // 2] if len(times) % 2 else sum(times[len(times) // 2 - 1:][:2]) / 2
        r.update(reps=len(times), min_s=times[0], median_s=median, mean_s=sum(times) / len(times),
                 max_s=times[-1], work_bytes=work[0], work_flops=work[1],
                 gbps=work[0] / median / 1e9 if median > 0 else "", gflops=work[1] / median / 1e9 if median > 0 else "",
                 verified=str(check[0]).lower(), check=check[1])
    return r


def rel_err(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return float(np.max(np.abs(got - want) / (1 + np.abs(want)))) if want.size else 0.0


def verdict(err, dtype):
    return err <= TOLERANCE[dtype], f"max rel err {err:.2g} vs numpy (tol {TOLERANCE[dtype]:g})"


def check_product(a, b, c, dtype):
    """C = A @ B on up to 64 evenly spread rows, in float64 numpy: n = 10000 stays cheap."""
    rows = np.unique(np.linspace(0, a.shape[0] - 1, min(64, a.shape[0])).astype(np.int64))
    want = a[rows].cpu().double().numpy() @ b.cpu().double().numpy()
    return verdict(rel_err(c[rows].cpu().double().numpy(), want), dtype)
