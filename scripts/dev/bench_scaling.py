#!/usr/bin/env python3
"""scripts/dev/bench.sh's checks of matmul_scaling runs, from their run.json records:

  bench_scaling.py overlap RUN_DIR     per dtype and p, overlapped SUMMA against its blocking twin
      in the same job: time ratio (bar <= 1.0; not judged where the two medians' 95 % intervals
      overlap, or either row is unreliable) and the share of the communication it leaves
      exposed, comm_exposed_s / comm_s (bar <= 50 %), each beside the model's prediction
  bench_scaling.py model RUN_DIR...    every row's model_error_pct (bar |error| <= 20 %) where
      n >= 1024 and the row is reliable (rows with more ranks than cores are flagged unreliable
      and are reported, not judged)

Prints one PASS/FAIL line per figure ("----" and why where it is not judged) and exits 1 when
any misses its bar."""
import sys

from run_records import records

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
    for path, record in records(run_dirs):
        for r in scaling_rows(record):
            error = (r.get("values") or {}).get("model_error_pct")
            if error is None:
                continue
            where = f"{r['case']} {r['dtype']}"
            if int(r["params"]["n"]) < MODEL_MIN_N or not r["reliable"]:
                why = f"n < {MODEL_MIN_N}" if int(r["params"]["n"]) < MODEL_MIN_N else r["unreliable_because"]
                print(f"---- model error, {where} = {error:+.1f} % (not judged: {why})")
                continue
            judged += 1
            verdict = "PASS" if abs(error) <= MODEL_BAR else "FAIL"
            ok = ok and verdict == "PASS"
            print(f"{verdict} model error, {where} = {error:+.1f} % (bar |error| <= {MODEL_BAR:g} %) "
                  f"[model {r['values']['model_s']:.4g} s, measured {r['seconds']['median']:.4g} s]")
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
