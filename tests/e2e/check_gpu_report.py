#!/usr/bin/env python3
"""scripts/gpu/gpu_report.py's GPU-depth sections on hand-made GPU check output (no GPU here):
  - the measured GPU ceilings as a share of the datasheet figure for the GPU nvidia-smi names
    (H100 SXM: 3.35 TB/s HBM, PCIe 5.0 x16 63.0 GB/s per direction; computed by hand below);
  - each precision's GEMM rate as a share of that precision's dense datasheet peak (H100 SXM:
    989.5 TFLOP/s bfloat16, 494.5 TF32), a rate above it flagged, never printed as a plain share;
  - the measured FMA peaks as a share of the CUDA cores' datasheet FP32 / FP64 (H100 SXM: 67 / 34
    TFLOP/s), above it flagged, and each GPU GEMM row's share of the measured peak beside its share
    of the best GEMM;
  - the FMA peak measured apart from miniGPU (cuda_reference fma) against what the FMA pipes
    allow at the SM clock its kernel held (SMs x lanes x 2 x clock), above it flagged, and
    miniGPU's own peak as a share of it; nvidia-smi's clock samples, lines it cannot read skipped;
  - a vendor row against the same cuBLAS call made directly (cuda_reference): a ratio more than
    10 % from 1 flagged, faster and slower each with what it can mean, a native row never; and
    cuBLAS's rate on values in [-1, 1) beside its rate on miniGPU's small integers;
  - the runs with two ranks on one GPU: the report fails (exit 1, naming the run) when a GPU
    row is not flagged as sharing the GPU or a case is unverified, and passes when all are.
    check_gpu_report.py scripts/gpu/gpu_report.py"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_fixture import write_run  # noqa: E402


def make_check(out, gpu_name, shared_flags):
    os.makedirs(out)
    with open(os.path.join(out, "gpus.csv"), "w", encoding="utf-8") as f:
        f.write(f"0, {gpu_name}, 9.0, 550.54, 81559 MiB\n")
    ceilings = [{"name": "gpu_d2d", "value": 1340.0, "how": "deep_copy of 256 MiB"},
                {"name": "gpu_triad", "value": 3015.0, "how": "triad"},
                {"name": "gpu_h2d_pinned", "value": 50.4, "how": "deep_copy of 256 MiB"},
                {"name": "gpu_fma_f32", "value": 60300.0, "how": "8 chains"},
                {"name": "gpu_fma_f64", "value": 35700.0, "how": "8 chains"}]
    write_run(os.path.join(out, "runs", "lazy_gpu"), "lazy_gpu", ceilings=ceilings)
    rows = [{"device": "gpu:0", "verified": True, "reliable": not flag,
             "unreliable_because": "ranks 0 and 1 share one GPU (n1, device 0)" if flag else ""}
            for flag in shared_flags] + [{"device": "cpu", "verified": True, "reliable": True}]
    write_run(os.path.join(out, "shared", "transfer_gpu-1"), "transfer_gpu", rows)
    gemm = [{"experiment": "matmul", "params": {"n": 4096, "variant": variant}, "dtype": dtype, "gflops": gflops,
             "verified": True, "check": "ok"}
            for dtype, variant, gflops in [("bfloat16", "vendor", 791600.0), ("float32", "vendor_tf32", 600000.0)]]
    gemm.append({"experiment": "matmul", "params": {"n": 4096, "variant": "tiled"}, "dtype": "float32",
                 "device": "gpu:0", "gflops": 40900.0, "verified": True, "check": "ok",
                 "peak": {"name": "gpu_fma_f32", "percent": 67.8}, "ceiling": {"name": "gpu_sgemm", "percent": 80.2}})
    gemm.append({"experiment": "matmul", "params": {"n": 4096, "variant": "tiled"}, "dtype": "float64",
                 "device": "gpu:0", "gflops": 37000.0, "verified": False, "check": "ok",
                 "peak": {"name": "gpu_fma_f64", "percent": 103.6, "above_because": "above its peak"},
                 "ceiling": None})
    write_run(os.path.join(out, "runs", "matmul_low_precision_gpu"), "matmul_low_precision_gpu", gemm)
    with open(os.path.join(out, "fma_reference.json"), "w", encoding="utf-8") as f:
        f.write('{"device": "x", "sms": 132, "fma": {"float32": {"tflops": 56.0, "sm_mhz": 1700, "chains": 16, "unroll": 32, '
                '"shapes": [{"chains": 16}, {"chains": 8}]}, '
                '"float64": {"tflops": 31.0, "sm_mhz": 1700}}}')
    with open(os.path.join(out, "reference.json"), "w", encoding="utf-8") as f:
        f.write('{"device": "x", "cuda_driver": 13000, "cublas": 130100, "gemm": [{"n": 4096, "sgemm_tflops": 50.0, '
                '"dgemm_tflops": 60.0, "tf32_tflops": 700.0, "bf16_tflops": 590.0, "fp16_tflops": 700.0, '
                '"sgemm_symmetric_tflops": 45.0, "dgemm_symmetric_tflops": 51.0}]}')
    with open(os.path.join(out, "clocks.csv"), "w", encoding="utf-8") as f:
        f.write("2026/11/27 10:00:00.000, 1700, 1980, 650.2, 51\n2026/11/27 10:00:00.050, [N/A], 1980, 1, 1\n"
                "2026/11/27 10:00:00.100, 1980, 1980, 100.0, 40\n2026/11/27 10:00:00.150, 19")


def main():
    script = sys.argv[1]
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "good")
        make_check(good, "NVIDIA H100 80GB HBM3", [True, True])
        proc = subprocess.run([sys.executable, script, good], capture_output=True, text=True)
        # 1340 / 3350 = 40.0 %, 3015 / 3350 = 90.0 %, 50.4 / 63.0 = 80.0 %; 791.6 / 989.5 = 80.0 %,
        # 600 / 494.5 = 121.3 %, flagged.
        # 791.6 / 590 = 1.34 and 600 / 700 = 0.857, both flagged; the native 40.9 / 50 = 0.818 is not.
        for want in ("| bfloat16 | 4096 | vendor | 792 | 590 | — | 1.3 ! faster than the same cuBLAS call made "
                     "directly: the GPU's state differed", "| 990 | 80.0 % | yes |",
                     "| TF32 | 4096 | vendor_tf32 | 600 | 700 | — | 0.86 ! slower than the same cuBLAS call made "
                     "directly: miniGPU's overhead", "| 494 | 121.3 % ! above the datasheet peak",
                     "| float32 | 4096 | tiled | 40.9 | 50 | — | 0.82 | 67 |",
                     # 51 / 60 = 0.85.
                     "values in [-1, 1) instead of miniGPU's small integers: n=4096: SGEMM 45, DGEMM 51 TFLOP/s "
                     "(0.85x the integers' DGEMM)",
                     "- bfloat16 peak: NVIDIA H100 Tensor Core GPU datasheet (2023)", "| 1.34e+03 | 3.35e+03 | 40.0 % |", "| 3.02e+03 | 3.35e+03 | 90.0 % |", "| 50.4 | 63 | 80.0 % |",
                     "datasheet (NVIDIA H100 SXM5 80GB)", "| transfer_gpu | 3 | 3 | 2 of 2 |",
                     # 60.3 / 67 = 90.0 %; 35.7 / 34 = 105.0 %, above the CUDA cores' FP64, flagged.
                     "| float32 | 60.3 | 67 | 90.0 % | 8 chains |",
                     "| float64 | 35.7 | 34 | 105.0 % ! above the datasheet peak",
                     "| tiled float32 n=4096 | 40.9 | 67.8 % of gpu_fma_f32 | 80.2 % of gpu_sgemm |",
                     "| tiled float64 n=4096 | 37 | 103.6 % of gpu_fma_f64 ! above its peak | — |",
                     # 2 x 128 x 132 x 1700 MHz = 57.4 TFLOP/s: 56 / 57.45 = 0.975; 60.3 / 56 = 1.08.
                     "| float32 | 56 TFLOP/s (16 chains, unrolled 32, best of 2 shapes) | 1700 MHz | 57.4 TFLOP/s (132 SMs x 128 lanes) | 0.975 | 60.3 TFLOP/s | 1.08 |",
                     # 2 x 64 x 132 x 1700 MHz = 28.7: 31 / 28.72 = 1.08, above; 35.7 / 31 = 1.15.
                     "| float64 | 31 TFLOP/s | 1700 MHz | 28.7 TFLOP/s (132 SMs x 64 lanes) | 1.08 ! above what the pipes",
                     "(2 samples): SM clock 1700–1980 MHz (median 1980), its maximum 1980 MHz, power up to 650 W, 51 °C"):
            if want not in proc.stdout:
                errors.append(f"missing {want!r}:\n{proc.stdout}{proc.stderr}")
        if proc.returncode != 0:
            errors.append(f"a fully flagged shared run failed the report: {proc.stderr}")
        bad = os.path.join(tmp, "bad")
        make_check(bad, "NVIDIA H200", [True, False])
        proc = subprocess.run([sys.executable, script, bad], capture_output=True, text=True)
        if proc.returncode != 1 or "transfer_gpu: 3/3 verified, 1/2 flagged" not in proc.stderr:
            errors.append(f"an unflagged shared GPU row passed (exit {proc.returncode}): {proc.stderr}")
        if "| 1.34e+03 | 4.8e+03 | 27.9 % |" not in proc.stdout:
            errors.append(f"H200's 4.8 TB/s not used:\n{proc.stdout}")
    for e in errors:
        print("FAIL", e)
    print("GPU ceilings and shared-GPU runs reported as computed by hand" if not errors else f"{len(errors)} failure(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
