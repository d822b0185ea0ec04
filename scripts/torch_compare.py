#!/usr/bin/env python3
"""miniGPU's results.csv rows beside scripts/torch_reference.py's rows for the same work on the
same device. miniGPU / PyTorch is a speed ratio (PyTorch's median time over miniGPU's): above 1,
miniGPU is faster. The peer rows are PyTorch's, and numpy's for matmul on the CPU; each names its
configuration (framework, the BLAS and kernel set under it, threads), printed first.
Used by scripts/dev/bench.sh (--bench) and scripts/gpu/gpu_report.py (pairs()).
    torch_compare.py RESULTS.csv[,RESULTS.csv...] TORCH.csv[,TORCH.csv...] [--bench]
Several files a side, joined by commas, are rounds of the same runs that the caller interleaved
(miniGPU, PyTorch, miniGPU, ...): each side's row is then its fastest round, so that a slow spell
of the machine (a VM's neighbours: the same kernel ran 17 and 24 us minutes apart) counts
against neither side; a round that failed to verify fails the row.
--bench prints bench.sh's rows and exits 1 when one misses its bar:
    logging step / PyTorch step (time per step, each mode and dtype)  bar <= 0.8, goal <= 0.6;
      against PyTorch's practised loop (out= buffers, in-place scaling)    bar <= 0.75
      each with the step's share of the FMA peak and the share its bar needs (above 100 %: out
      of reach on this machine)
    matmul miniGPU / PyTorch and / numpy GFLOP/s (each n, dtype, variant)  goal >= 1.0 (not a bar)
    matmul bfloat16 miniGPU / PyTorch GFLOP/s on the CPU (issue 42): native (tiled)  bar >= 0.5,
      goal >= 0.9; vendor (oneDNN, the library under PyTorch's)                bar >= 0.9
    matmul bfloat16 (float16) / float32 GFLOP/s of miniGPU itself, with the row's error against
      float64 (results.csv's error columns)                             reported (no bar)"""
import csv
import sys

# The columns that say two rows did the same work, beside experiment, dtype and device.
MATCH = {
    "transfer": ("direction", "host_memory", "bytes", "chunks"),
    "lazy": ("variant", "elements"),
    "matmul": ("n",),
    "logging": ("n", "steps", "mode"),
    "linear": ("rule", "data", "loss", "batch_size", "samples", "in_features"),
    "multi_gpu_concurrency": ("k", "n", "multiplies_per_gpu"),
}
LOGGING_BAR, LOGGING_BEST_BAR, LOGGING_GOAL, MATMUL_GOAL = 0.8, 0.75, 0.6, 1.0
BF16_BAR, BF16_GOAL = 0.5, 0.9  # native bfloat16 GEMM / the best host bfloat16 GEMM (PyTorch's oneDNN)
VENDOR_BF16_BAR = 0.9  # miniGPU's oneDNN call / PyTorch's: the same library, so only overhead differs


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def identity(row):
    """What a row measured, apart from its timing: a peer row's kernel (PyTorch's plain or out=
    loop) is part of it; miniGPU's is not, since `auto` may pick another kernel in another round."""
    match = tuple(row.get(k, "") for k in MATCH.get(row.get("experiment"), ()))
    kernel = row.get("kernel", "") if row.get("peer") or row.get("torch") else ""
    return (row.get("experiment"), row.get("dtype"), row.get("device"), row.get("variant", ""),
            row.get("peer", ""), kernel) + match


def fastest_rounds(paths):
    """The rows of the comma-separated files, one per identity: the round with the least median,
    or a round that did not verify (a wrong answer is never outrun by a right one)."""
    best = {}
    for path in paths.split(","):
        for row in read(path):
            key = identity(row)
            old = best.get(key)
            if old is None or old.get("verified") == "true" and (
                    row.get("verified") != "true" or float(row.get("median_s") or "inf") <
                    float(old.get("median_s") or "inf")):
                best[key] = row
    return list(best.values())


def same_device(mine, theirs):
    """cpu with cpu; a real GPU with CUDA (an emulated GPU is host memory: no CUDA row matches it)."""
    m = mine.get("device", "")
    if theirs == "cpu":
        return m == "cpu"
    return m.startswith("gpu") and "emulated" not in m


def pairs(mine_rows, torch_rows):
    """(miniGPU row, PyTorch row, speed ratio) for every measured, verified pair doing the same work."""
    index = {}
    for t in torch_rows:
        if t.get("skipped") or t.get("verified") != "true" or t["experiment"] not in MATCH:
            continue
        key = (t["experiment"],) + tuple(t.get(k, "") for k in MATCH[t["experiment"]])
        index.setdefault(key, []).append(t)
    out = []
    for m in mine_rows:
        if m.get("experiment") not in MATCH or m.get("verified") != "true":
            continue
        key = (m["experiment"],) + tuple(m.get(k, "") for k in MATCH[m["experiment"]])
        for t in index.get(key, []):
            # TF32 is a mode of float32: only a TF32 row pairs with a TF32 row.
            tf32 = "tf32" in m.get("variant", "")
            if t["dtype"] in ("-", m.get("dtype")) and same_device(m, t["device"]) and \
                    tf32 == ("tf32" in t.get("variant", "")):
                ratio = float(t["median_s"]) / float(m["median_s"]) if float(m["median_s"]) > 0 else None
                out.append((m, t, ratio))
    return out


def unverified_peers(mine_rows, torch_rows):
    """(miniGPU row, peer row) where a barred matmul row (bfloat16 on the CPU) has a peer that
    measured the same work but did not verify, so its ratio would compare against a wrong answer."""
    out = []
    for t in torch_rows:
        if t.get("experiment") != "matmul" or t.get("skipped") or t.get("verified") == "true":
            continue
        for m in mine_rows:
            if m.get("experiment") == "matmul" and m.get("verified") == "true" and m.get("n") == t.get("n") \
                    and m.get("dtype") == t.get("dtype") == "bfloat16" and m.get("device") == "cpu" \
                    and same_device(m, t["device"]):
                out.append((m, t))
    return out


def peer(t):
    """The peer's name: "numpy 1.24.2" or "PyTorch 1.13.1" (older files carry only `torch`)."""
    return t.get("peer") or f"PyTorch {t.get('torch') or '?'}"


def configurations(found):
    """One line per peer configuration among the pairs: framework, BLAS and kernel set, threads."""
    seen = []
    for _, t, _ in found:
        line = f"{peer(t)} over {t.get('blas') or 'an unrecorded BLAS'}, {t.get('threads') or '?'} thread(s)"
        if line not in seen:
            seen.append(line)
    return seen


def describe(m):
    """The pair's name: experiment, the matched columns, and what miniGPU ran (kernel or variant)."""
    exp = m["experiment"]
    cols = " ".join(f"{k}={m[k]}" for k in MATCH[exp] if m.get(k) not in ("", "-"))
    ran = m.get("kernel") or (m.get("variant") if exp == "matmul" else "")
    return f"{exp} {cols} {m['dtype']}" + (f" [{ran}]" if ran and ran != "-" else "")


def peak_note(m, value, bar):
    """How far the step is from its floor: its share of the FMA peak (results.csv's pct_of_peak:
    the step's counted flops at the peak, a time no kernel beats) and the share the bar needs.
    On a Zen 4 VM (2026-12-05) the float32 step ran at 93 % of the peak and missed 0.75 at 0.79: the
    bar needed 98 %. Empty where the row has no peak."""
    try:
        share = float(m.get("pct_of_peak") or "nan") / 100
    except ValueError:
        return ""
    if not share > 0:
        return ""
    needed = value * share / bar  # the step's time at the peak is value * share of PyTorch's step
    reach = "; above the peak: out of reach" if needed > 1 else ""
    return f"   (step at {100 * share:.0f} % of the FMA peak; the bar needs {100 * needed:.0f} %{reach})"


def bench_rows(found):
    """(label, case, ours, theirs, value, bar, goal, direction, note) of bench.sh's PyTorch rows."""
    rows = []
    for m, t, _ in found:
        if m["experiment"] == "logging":
            steps = int(m["steps"])
            ours, theirs = float(m["median_s"]) / steps, float(t["median_s"]) / steps
            # PyTorch's loop as the chapter writes it, and as a practised user does (out=
            # buffers, in-place scaling: "torch_out"), the stricter bar against the latter.
            practised = t.get("kernel") == "torch_out"
            bar = LOGGING_BEST_BAR if practised else LOGGING_BAR
            rows.append((f"logging step / PyTorch step{' (out=)' if practised else ''}",
                         f"{m['mode']} n={m['n']} {m['dtype']} {m.get('kernel', '')}", ours, theirs, ours / theirs,
                         bar, LOGGING_GOAL, "<=", peak_note(m, ours / theirs, bar)))
        elif m["experiment"] == "matmul":
            ours, theirs = float(m["gflops"]), float(t["gflops"])
            bar, goal = None, MATMUL_GOAL
            if m["dtype"] == "bfloat16" and m.get("device") == "cpu":
                bar, goal = (VENDOR_BF16_BAR, VENDOR_BF16_BAR) if m["variant"] == "vendor" else (BF16_BAR, BF16_GOAL)
            rows.append((f"miniGPU / {peer(t).split()[0]} GFLOP/s", f"n={m['n']} {m['dtype']} {m['variant']}", ours,
                         theirs, ours / theirs, bar, goal, ">=", ""))
    return rows


def precision_rows(mine):
    """(label, case, ours, float32's, speedup) of each verified 16-bit matmul row over the float32
    row of the same n, variant and device, its error against float64 in the case."""
    f32 = {(m.get("n"), m.get("variant"), m.get("device")): m for m in mine
           if m.get("experiment") == "matmul" and m.get("dtype") == "float32" and m.get("verified") == "true"}
    rows = []
    for m in mine:
        base = f32.get((m.get("n"), m.get("variant"), m.get("device")))
        if m.get("experiment") != "matmul" or m.get("dtype") not in ("bfloat16", "float16") or not base \
                or m.get("verified") != "true":
            continue
        error = f"err {float(m['error_max_abs_rel']):.2g}" if m.get("error_max_abs_rel") else "no error"
        rows.append((f"{m['dtype']} / float32 GFLOP/s", f"n={m['n']} {m['variant']} {m['device']} {error}",
                     float(m["gflops"]), float(base["gflops"]), float(m["gflops"]) / float(base["gflops"])))
    return rows


def main(argv):
    if argv[1:2] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    mine = fastest_rounds(argv[1])
    peer_rows = fastest_rounds(argv[2])
    found = pairs(mine, peer_rows)
    for line in configurations(found):
        print(f"peer: {line}")
    if "--bench" not in argv:
        print(f"{'pair':60}{'peer':>8}{'miniGPU (s)':>14}{'peer (s)':>14}{'miniGPU / peer':>20}")
        for m, t, ratio in found:
            print(f"{describe(m):60}{peer(t).split()[0]:>8}{float(m['median_s']):>14.4g}{float(t['median_s']):>14.4g}"
                  f"{ratio:>20.3f}")
        return 0 if found else 1
    rows = bench_rows(found)
    failed = 0
    print(f"{'benchmark':38}{'case':40}{'ours':>12}{'PyTorch':>12}{'ratio':>8}  {'bar':>7}  verdict")
    for label, case, ours, theirs, value, bar, goal, direction, note in rows:
        meets = (lambda x: value <= x) if direction == "<=" else (lambda x: value >= x)
        if bar is None:
            verdict, bar_text = ("info (goal met)" if meets(goal) else f"info (goal {direction}{goal:g} not met)"), "-"
        else:
            verdict = ("PASS" if meets(goal) else f"PASS (goal {direction}{goal:g} not met)") if meets(bar) else "FAIL"
            failed += not meets(bar)
            bar_text = f"{direction}{bar:.2f}"
        print(f"{label:38}{case:40}{ours:>12.4g}{theirs:>12.4g}{value:>8.3f}  {bar_text:>7}  {verdict}{note}")
    for label, case, ours, theirs, value in precision_rows(mine):  # miniGPU against itself: float32 column
        print(f"{label:38}{case:40}{ours:>12.4g}{theirs:>12.4g}{value:>8.3f}  {'-':>7}  reported")
    # A barred row whose peer gave a wrong answer is not judged, and says so: the peer's failure
    # is neither miniGPU's pass nor its miss.
    unjudged = unverified_peers(mine, peer_rows)
    for m, t in unjudged:
        print(f"{'miniGPU / ' + peer(t).split()[0] + ' GFLOP/s':38}{'n=' + m['n'] + ' ' + m['dtype'] + ' ' + m['variant']:40}"
              f"  not judged: {peer(t)}'s row did not verify ({t.get('check') or 'no check recorded'})")
    # An experiment miniGPU ran with no PyTorch pair at all means the two runs did different work.
    for experiment in sorted({m["experiment"] for m in mine} & {"logging", "matmul"}):
        if not any(m["experiment"] == experiment for m, *_ in found + unjudged):
            print(f"FAIL {experiment}: no miniGPU row pairs with a PyTorch row (same n, dtype, device?)")
            failed += 1
    print(f"{failed} PyTorch ratio(s) missed their bar" if failed else "every PyTorch ratio met its bar",
          file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
