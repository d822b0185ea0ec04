#!/usr/bin/env python3
"""scripts/dev/bench.sh's checks of matmul_scaling runs, from their run.json records:

  bench_scaling.py overlap RUN_DIR     per dtype and p, overlapped SUMMA against its blocking twin
      in the same job: time ratio (bar <= 1.0; not judged where the two medians' 95 % intervals
      overlap, or either row is unreliable) and the share of the communication it leaves
      exposed, comm_exposed_s / comm_s (bar <= 50 %), each beside the model's prediction
  bench_scaling.py model RUN_DIR...    every row's model_error_pct (bar |error| <= 20 %) where
      n >= 1024 and the row is reliable (rows with more ranks than cores are flagged unreliable
      and are reported, not judged); where a RUN_DIR holds several launches of one input, each
      row once, by the median of its launches' errors (each launch calibrates its own model),
      judged where its reliable launches are more than half of them

Prints one PASS/FAIL line per figure ("----" and why where it is not judged) and exits 1 when
any misses its bar."""
import statistics
import sys

from run_records import launches_median, records

RATIO_BAR, EXPOSED_BAR, MODEL_BAR, MODEL_MIN_N = 1.0, 50.0, 20.0, 1024


def scaling_rows(record):
    return [r for r in record["results"] if r["experiment"] == "matmul_scaling"]


def median_interval(row):
    seconds = row["seconds"]
    return seconds.get("median_ci95") or [seconds["median"], seconds["median"]]


def unjudged_ratio(row, twin):
    """Why row's time over its twin's cannot be judged, or "" where it can."""
    for r in (row, twin):
        if not r.get("reliable", True):
            return f"{r['case']}: {r.get('unreliable_because') or 'unreliable'}"
    (lo, hi), (twin_lo, twin_hi) = median_interval(row), median_interval(twin)
    return "the two medians' 95 % intervals overlap" if lo <= twin_hi and twin_lo <= hi else ""


def overlap(run_dir):
    ok, seen = True, 0
    for path, record in records([run_dir]):
        rows = scaling_rows(record)
        blocking = {(r["dtype"], r["params"]["ranks"], r["params"]["n"]): r for r in rows
                    if r["params"].get("decomposition") == "summa" and r["params"].get("overlap") == "false"}
        for r in rows:
            if r["params"].get("decomposition") != "summa" or r["params"].get("overlap") != "true":
                continue
            twin = blocking.get((r["dtype"], r["params"]["ranks"], r["params"]["n"]))
            if twin is None:
                continue
            seen += 1
            v, w = r["values"], twin["values"]
            where = f"{r['dtype']} p={r['params']['ranks']} n={r['params']['n']}"
            ratio = r["seconds"]["median"] / twin["seconds"]["median"]
            model_ratio = v["model_s"] / w["model_s"]
            # As minigpu's own ratio findings (io::ratio_finding): where the two medians' 95 %
            # intervals overlap, which side of 1 the ratio lies on is not established.
            why = unjudged_ratio(r, twin)
            verdict = "----" if why else "PASS" if ratio <= RATIO_BAR else "FAIL"
            ok = ok and verdict != "FAIL"
            bar = f"not judged: {why}; " if why else ""
            print(f"{verdict} summa overlapped / blocking time, {where} = {ratio:.4f} ({bar}bar <= {RATIO_BAR:g}; "
                  f"model {model_ratio:.4f}) [{r['seconds']['median']:.4g} s / {twin['seconds']['median']:.4g} s]")
            comm, exposed = v.get("comm_s"), v.get("comm_exposed_s")
            if not comm or exposed is None:
                print(f"FAIL summa exposed communication, {where}: no comm_s / comm_exposed_s in {v}")
                ok = False
                continue
            share = 100 * exposed / comm
            model_share = 100 * v["model_comm_exposed_s"] / v["model_comm_s"] if v.get("model_comm_s") else 0.0
            unreliable = "" if r.get("reliable", True) else r.get("unreliable_because") or "unreliable"
            verdict = "----" if unreliable else "PASS" if share <= EXPOSED_BAR else "FAIL"
            ok = ok and verdict != "FAIL"
            bar = f"not judged: {unreliable}; " if unreliable else ""
            print(f"{verdict} summa exposed communication, {where} = {share:.1f} % of comm_s "
                  f"({bar}bar <= {EXPOSED_BAR:g} %; "
                  f"model {model_share:.1f} %) [{exposed:.3g} s of {comm:.3g} s]")
    if not seen:
        print(f"FAIL overlap: no overlapped SUMMA row with a blocking twin in {run_dir}")
        return False
    return ok


def model(run_dirs):
    ok, judged = True, 0
    for run_dir in run_dirs:
        launches = {}  # (case, dtype) -> that row in each launch, in launch order
        for path, record in records([run_dir]):
            for r in scaling_rows(record):
                if (r.get("values") or {}).get("model_error_pct") is not None:
                    launches.setdefault((r["case"], r["dtype"]), []).append(r)
        for (case, dtype), rows in launches.items():
            errors = [r["values"]["model_error_pct"] for r in rows]
            where = f"{case} {dtype}" + (f", the median of {len(rows)} launches" if len(rows) > 1 else "")
            error = launches_median([r["values"]["model_error_pct"] for r in rows if r["reliable"]], len(rows))
            if int(rows[0]["params"]["n"]) < MODEL_MIN_N or error is None:
                why = (f"n < {MODEL_MIN_N}" if int(rows[0]["params"]["n"]) < MODEL_MIN_N else
                       "; ".join(sorted({r["unreliable_because"] for r in rows if not r["reliable"]})))
                print(f"---- model error, {where} = {statistics.median(errors):+.1f} % (not judged: {why})")
                continue
            judged += 1
            verdict = "PASS" if abs(error) <= MODEL_BAR else "FAIL"
            ok = ok and verdict == "PASS"
            r = rows[0]
            each = [f"{x['values']['model_error_pct']:+.1f}" +
                    ("" if x["reliable"] else f" (set aside: {x['unreliable_because']})") for x in rows]
            figures = (f"[launches: {', '.join(each)} %]" if len(rows) > 1 else
                       f"[model {r['values']['model_s']:.4g} s, measured {r['seconds']['median']:.4g} s]")
            print(f"{verdict} model error, {where} = {error:+.1f} % (bar |error| <= {MODEL_BAR:g} %) {figures}")
    if not judged:
        print("FAIL model: no reliable matmul_scaling row with n >= 1024 to judge")
        return False
    return ok


def main():
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(sys.argv) < 3 or sys.argv[1] not in ("overlap", "model"):
        print(__doc__, file=sys.stderr)
        return 2
    ok = overlap(sys.argv[2]) if sys.argv[1] == "overlap" else model(sys.argv[2:])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
