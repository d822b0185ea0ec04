#!/usr/bin/env python3
"""Pairs the rows of a minigpu_bench JSON file (Google Benchmark, with repetitions) and
checks each ratio against its bar: ours and the reference were measured in one process.
Prints one row per pair; exits 1 when any ratio misses its bar.
  bench_report.py BENCH.json [--threads BENCH_ALL_THREADS.json] [--markdown]
--threads: the same GEMM rows run with every core (another process, same sitting): native /
BLAS again at that thread count, and native's parallel efficiency from 1 thread to it; and the
memcpy and triad rows there (node bandwidth, reported beside the 1-thread figures).
The BLAS peer of native is the fastest of OpenBLAS (`blas`), BLIS (`blis`, where installed) and,
in float32, oneDNN's sgemm (`dnnl`, where the build has oneDNN) in each case, named in the row;
at n <= 128 it is OpenBLAS, whose AVX-512 small-matrix path skips packing (bar 0.95).
GEMM pairs are paired where the file holds their round (gemm_round/DTYPE/n:N/all: every kernel
of the case called in turn, each call timed; tests/bench/gemm_rows.hpp; one thread only): the
ratio is the median over repetitions of each repetition's ratio, both sides timed in the same
seconds. So is deep_copy / memcpy where the file holds copy_round/bytes:B/all (both copies in
turns between the same buffers).
A GEMM pair without a round (each kernel's own row, each side's fastest repetition) with a time
faster than the FMA peak measured in the same file (peak/DTYPE/fma) allows is shown with "----"
and why, not judged: that repetition met a faster clock than the peak did."""
import json
import statistics
import sys


def fastest(path):
    """run name -> its fastest repetition's real time (s), or its 'median' aggregate where the file
    holds no repetitions (an errored row: NaN). The repetitions of every row are interleaved at
    random in one process, so each side's fastest fell in the machine's fastest spell: on the Xeon
    VM of 2026-11-28, where one product ran 16, 24 or 29 us in spells minutes long, the medians of
    5 repetitions put native / OpenBLAS at n = 64 anywhere from 0.62 to 0.89, the minima at 0.94-0.97."""
    data = json.load(open(path))
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    repetitions, median, errored = {}, {}, set()
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"]).removesuffix("/real_time")
        seconds = b["real_time"] * unit[b.get("time_unit", "ns")]
        if b.get("error_occurred"):
            errored.add(name)
        elif b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                median[name] = seconds
        else:
            repetitions.setdefault(name, []).append(seconds)
    times = {**median, **{name: min(reps) for name, reps in repetitions.items()}}
    # A round's kernels as rows of their own, each its fastest repetition's time a call, where the
    # file has no row of that kernel's own (bench.sh times native alone too: its efficiency).
    cases, refused = rounds(data)
    for case, reps in cases.items():
        for kernel in {k for rep in reps for k in rep}:
            times.setdefault(f"{case}/{kernel}", min(rep[kernel] for rep in reps if kernel in rep))
    return data.get("context", {}), {**times, **{name: float("nan") for name in errored}}, cases, refused


# The kernels a GEMM case compares: OpenBLAS called directly, the peers, miniGPU's three; and the
# two sides of a copy round.
KERNELS = ("blas", "blis", "dnnl", "vendor", "native", "auto", "deep_copy", "memcpy")


def rounds(data):
    """({gemm/DTYPE/n:N or copy/bytes:B: its round's repetitions, each {kernel: mean seconds a
    call}}, the peers that left a round), from the counters KERNEL_s and PEER_refused of
    gemm_round/DTYPE/n:N/all and copy_round/bytes:B/all. A peer whose product differed from
    OpenBLAS's left the round and has no time there."""
    sets, refused = {}, set()
    for b in data["benchmarks"]:
        parts = b.get("run_name", b["name"]).split("/")  # .../all[/min_time:S][/real_time]
        if parts[0] not in ("gemm_round", "copy_round") or "all" not in parts \
                or b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        case = "/".join([parts[0].removesuffix("_round")] + parts[1:parts.index("all")])
        refused |= {f"{k} in {case}" for k in KERNELS if b.get(f"{k}_refused")}
        rep = {k: float(b[f"{k}_s"]) for k in KERNELS if f"{k}_s" in b}
        sets.setdefault(case, []).append(rep)
    return sets, sorted(refused)


def paired(reps, ours, refs):
    """(ours, reference, ratio, which) from a round's repetitions: ours' median seconds a call, the
    reference's (the fastest of `refs` in each repetition), the median of the repetitions'
    reference / ours, and which of `refs` was fastest most often. None where no repetition has both."""
    found = [(rep[ours], min((rep[k], k) for k in refs if k in rep)) for rep in reps or []
             if ours in rep and any(k in rep for k in refs)]
    if not found:
        return None
    which = [k for _, (_, k) in found]
    return (statistics.median(o for o, _ in found), statistics.median(r for _, (r, _) in found),
            statistics.median(r / o for o, (r, _) in found), max(set(which), key=which.count))


def peaks(path):
    """dtype -> the fastest repetition's GFLOP/s of its FMA peak row (peak/DTYPE/fma) in the file."""
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        parts = b.get("run_name", b["name"]).split("/")
        if parts[0] == "peak" and b.get("run_type") != "aggregate" and "GFLOP/s" in b:
            out[parts[1]] = max(out.get(parts[1], 0.0), b["GFLOP/s"])
    return out


def above_peak(times, names, peak):
    """Why a pair of square GEMM rows cannot be judged: one of `names` ran faster than the FMA peak
    measured in the same process, so it met a faster spell of the machine's clock than the peak did
    (on the Xeon VM of 2026-12-06 a one-thread float64 product ran 99.0 GFLOP/s in one repetition
    and 67-80 in the others, with the peak's five at 87.6-95.2), and a ratio drawn from it proves
    nothing. "" where neither did or the file has no peak row."""
    for name in names:
        parts = name.split("/")
        if parts[0] != "gemm" or parts[1] not in peak or not times.get(name):
            continue
        n = int(parts[2].split(":")[1])
        rate = 2.0 * n ** 3 / times[name] / 1e9
        if rate > peak[parts[1]]:
            return (f"{parts[3]}'s fastest repetition ran {rate:.1f} GFLOP/s, above the {parts[1]} FMA peak "
                    f"measured beside it ({peak[parts[1]]:.1f})")
    return ""


def gemm_pair(times, cases, peak, group, case, name, refs, bar, target):
    """The row of GEMM `name` (gemm/DTYPE/n:N/KERNEL) against the fastest of `refs`, kernels of its
    case, `group` naming it ({} for the reference's name): paired where `cases` has its round
    (rounds()), else each side's fastest repetition in `times`, checked against `peak`. None where
    the file has no reference."""
    parts = name.split("/")
    found = paired(cases.get("/".join(parts[:3])), parts[3], refs)
    if found:
        ours, ref, ratio, which = found
        return (group.format(which), case, ours, ref, ratio, bar, target, ">=", None, "")
    best, which = min(((times[k], w) for w in refs if (k := "/".join(parts[:3] + [w])) in times
                       and times[k] == times[k]), default=(None, None))  # a NaN (an errored row) never the best
    if best is None:
        return None
    why = above_peak(times, [name, "/".join(parts[:3] + [which])], peak)
    return (group.format(which), case, times[name], best, best / times[name], bar, target, ">=", None, why)


def pairs(times, peak=None, cases=None):
    """(group, case, ours, reference, ratio, bar, target, direction, bound, why) for every checked
    pair. ratio > 1 means ours is faster, except for logging (ours/reference time, lower is
    better); bound: what the ratio cannot exceed (None: no bound); why: why the pair is not
    judged ("" where it is). peak: dtype -> FMA peak GFLOP/s measured beside the rows (peaks());
    cases: the file's rounds (rounds()), whose GEMM pairs are paired."""
    rows, peak, cases = [], peak or {}, cases or {}

    def natural(name):  # gemm n=64 before n=128, 1 KiB before 1 MiB
        return [(0, int(p.split(":")[1]), "") if ":" in p and p.split(":")[1].isdigit() else (1, 0, p)
                for p in name.split("/")]

    for name in sorted(times, key=natural):
        parts = name.split("/")
        if parts[0] == "gemm" and parts[3] in ("vendor", "native"):
            n = int(parts[2].split(":")[1])
            if parts[3] == "vendor":  # the very call it makes: OpenBLAS
                refs, bar, target = ["blas"], 0.95, 0.95
            elif n <= 128:  # small products: against OpenBLAS's unpacked small-matrix path
                refs, bar, target = ["blas"], 0.95, 1.00
            else:  # against the best BLAS on this CPU (scripts/dev/bench.sh chose OpenBLAS's kernels)
                refs, (bar, target) = list(PEERS), ((0.90, 1.00) if 512 <= n <= 2048 else (None, None))
            row = gemm_pair(times, cases, peak, f"gemm {parts[3]} / {{}}", f"{parts[1]} n={n}", name, refs,
                            bar, target)
            rows += [row] if row else []
        elif parts[0] == "gemm" and parts[3] in PEERS[1:]:
            # which peer is the better one here: reported, not a bar
            row = gemm_pair(times, cases, peak, f"gemm {parts[3]} / openblas",
                            f"{parts[1]} n={parts[2].split(':')[1]}", name, ["blas"], None, None)
            rows += [row] if row else []
        elif parts[0] == "gemm" and parts[3] == "auto":
            # The faster of vendor and native, both timed in this run: auto must be as fast.
            row = gemm_pair(times, cases, peak, "gemm auto / best", f"{parts[1]} n={parts[2].split(':')[1]}", name,
                            ["vendor", "native"], 0.95, 0.95)
            rows += [row] if row else []
        elif parts[0] == "logging" and parts[2] == "minigpu":
            ref = times.get("/".join(parts[:2] + ["reference"]))
            if ref is not None:
                rows.append(("logging step", parts[1], times[name], ref, times[name] / ref, 1.10, 1.10, "<=",
                             None, ""))
        elif parts[0] == "stream" and parts[2] == "chain_fused":
            for other, moved in (("memcpy", 2), ("triad", 3)):
                ref = times.get("/".join(parts[:2] + [other]))
                if ref is not None:
                    # Bandwidths: the fused chain and memcpy move 2 arrays, the triad 3.
                    ratio = (2 / times[name]) / (moved / ref)
                    rows.append(("fused chain vs " + other, parts[1], times[name], ref, ratio, 0.80, 0.80, ">=",
                                 None, ""))
        elif parts[0] == "copy" and parts[2] == "deep_copy":
            size = int(parts[1].split(":")[1])
            bar = 0.90 if size >= 1 << 20 else None
            # Paired where the file has the round (copy_round: both in turns); else each side's row.
            found = paired(cases.get("/".join(parts[:2])), "deep_copy", ["memcpy"])
            ref = times.get("/".join(parts[:2] + ["memcpy"]))
            if found:
                rows.append(("deep_copy vs memcpy", human(size), found[0], found[1], found[2], bar, bar, ">=",
                             None, ""))
            elif ref is not None:
                rows.append(("deep_copy vs memcpy", human(size), times[name], ref, ref / times[name], bar, bar, ">=",
                             None, ""))
    return rows


# native's GEMM peers: OpenBLAS, BLIS, oneDNN's sgemm (float32 only).
PEERS = ("blas", "blis", "dnnl")


def human(size):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024:
            return f"{size} {unit}"
        size //= 1024
    return f"{size} TiB"


def thread_rows(one, many, threads, peak_one=None, peak_many=None, cases_many=None):
    """native / BLAS at `threads` threads, and native's efficiency from 1 thread to `threads`
    (rows as pairs(); peak_one and peak_many: each file's FMA peaks, peaks(); cases_many: the
    all-threads file's rounds, rounds(), whose pairs are paired; bench.sh times each kernel in its
    own row there). The efficiency compares two processes: each side's fastest repetition, checked
    against the peaks."""
    rows, peak_one, peak_many = [], peak_one or {}, peak_many or {}
    for name in sorted(many):
        parts = name.split("/")
        if parts[0] == "stream" and parts[2] == "triad":
            memcpy = many.get("/".join(parts[:2] + ["memcpy"]))
            if memcpy is not None:  # bandwidths: the triad moves 3 arrays, memcpy 2
                rows.append((f"triad / memcpy, {threads} thr", parts[1], many[name], memcpy,
                             (3 / many[name]) / (2 / memcpy), None, None, ">=", None, ""))
            for which in ("triad", "memcpy"):
                key = "/".join(parts[:2] + [which])
                if key in one and key in many:
                    rows.append((f"{which} 1->{threads} thr speedup", parts[1], many[key], one[key],
                                 one[key] / many[key], None, None, ">=", None, ""))
            continue
        if parts[0] != "gemm" or parts[3] != "native":
            continue
        n = int(parts[2].split(":")[1])
        row = gemm_pair(many, cases_many or {}, peak_many, f"gemm native / {{}}, {threads} thr",
                        f"{parts[1]} n={n}", name, list(PEERS), 0.90 if 512 <= n <= 2048 else None, 1.00)
        rows += [row] if row else []
        if name in one:
            efficiency = one[name] / (threads * many[name])
            why = above_peak(one, [name], peak_one) or above_peak(many, [name], peak_many)
            # Ideal is 1.0: past 1.05 the one-thread time came from a slower spell of the machine.
            rows.append((f"native 1->{threads} thr eff.", f"{parts[1]} n={n}", many[name], one[name], efficiency,
                         0.90 if n == 2048 else None, 0.90, ">=", 1.05, why))
    return rows


def main():
    args = sys.argv[1:]
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    markdown = "--markdown" in args
    args = [a for a in args if a != "--markdown"]
    context, times, cases, refused = fastest(args[0])
    peak = peaks(args[0])
    rows = pairs(times, peak, cases)
    if "--threads" in args:
        many_path = args[args.index("--threads") + 1]
        many_context, many, cases_many, refused_many = fastest(many_path)
        refused += [f"{peer}, {many_context.get('minigpu_threads', '?')} threads" for peer in refused_many]
        threads = int(many_context.get("minigpu_threads", "0") or 0)
        print(f"all-threads run: {many_context.get('minigpu_blas', '?')}; {many_context.get('minigpu_blis', '?')}; "
              f"{many_context.get('minigpu_dnnl', '?')}; {threads} Kokkos thread(s)")
        if threads > 1:
            rows += thread_rows(times, many, threads, peak, peaks(many_path), cases_many)
        else:
            print("(one thread there: a Serial Kokkos build; no thread rows)")
    failed = 0
    for key in ("minigpu_cpu", "minigpu_vector_isa", "minigpu_flags", "minigpu_blas", "minigpu_blis",
                "minigpu_dnnl", "minigpu_threads", "OPENBLAS_CORETYPE"):
        print(f"{key.removeprefix('minigpu_')}: {context.get(key, '?')}")
    print("times: a GEMM or copy pair with a round (gemm_round, copy_round): each side's median time a call "
          "over the round's repetitions, the ratio the median of the repetitions' own ratios; every other row: "
          "its fastest of its repetitions, interleaved at random (its median where the file holds none)")
    header = ["benchmark", "case", "ours (s)", "reference (s)", "ratio", "bar", "verdict"]
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(f"{'benchmark':30}{'case':16}{'ours (s)':>12}{'ref (s)':>12}{'ratio':>8}  {'bar':>7}  verdict")
    above, unjudged = [], []
    for group, case, ours, ref, ratio, bar, target, direction, bound, why in rows:
        if why:  # drawn from a figure the machine's measured peak rules out: flagged, not judged
            verdict, bar_text = "----", "-" if bar is None else f"{direction}{bar:.2f}"
            unjudged.append(f"{group} {case}: {why}")
        elif bound is not None and ratio > bound:  # past what it can reach: flagged, never met
            verdict, bar_text = "ABOVE", "-" if bar is None else f"{direction}{bar:.2f}"
            failed += bar is not None
            above.append(f"{group} {case}")
        elif bar is None:
            verdict, bar_text = "info", "-"
        else:
            ok = ratio >= bar if direction == ">=" else ratio <= bar
            verdict = "PASS" if ok else "FAIL"
            failed += not ok
            bar_text = f"{direction}{bar:.2f}"
        cells = [group, case, f"{ours:.4g}", f"{ref:.4g}", f"{ratio:.3f}", bar_text, verdict]
        if markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print(f"{cells[0]:30}{cells[1]:16}{cells[2]:>12}{cells[3]:>12}{cells[4]:>8}  {cells[5]:>7}  {cells[6]}")
    for row in above:
        print(f"ABOVE {row}: efficiency past its ideal of 1.0 by more than 5 %: the one-thread and all-thread "
              "runs met different spells of the machine, so the row proves nothing")
    for peer in refused:
        print(f"{peer}: left the round, its product differing from OpenBLAS's (or it refused the call): "
              "not a peer there")
    for row in unjudged:
        print(f"---- {row}: a faster spell of the clock than the peak's, so the row is not judged")
    print(f"{failed} ratio(s) missed their bar" if failed else "every ratio met its bar", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
