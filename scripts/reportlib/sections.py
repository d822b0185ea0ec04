"""The report's sections, each drawn from run.json as the run wrote it: nothing here measures
or recomputes a result; spreads are read from the rows' own intervals."""
from .markup import (Markup, definitions, esc, interval, join, number, number_apart, percent, seconds, table,
                     tag)


def flag(item):
    """A reliability cell: a check mark, or '!' with the run's own reason."""
    if item.get("reliable", True) is not False:
        return "ok"
    return tag("span", "! " + (item.get("unreliable_because") or "unreliable"), class_="flag")


def value_of(item, key="value"):
    """A value with its unit; no unit after a missing value."""
    v = item.get(key)
    return None if v is None else f"{number(v)}\u00a0{item.get('unit', '')}".strip()


def summary(record, name):
    rows = record.get("results", [])
    failed = sum(1 for r in rows if r.get("verified") is False)
    status = record.get("status", "?")
    counts = f"{len(rows)} of {record.get('cases_planned', len(rows))} cases, {len(rows) - failed} verified, {failed} failed"
    lines = [tag("p", join(["status ", tag("strong", status, class_=None if status == "complete" else "bad"),
                            f" · {counts} · {record.get('started', '?')} – {record.get('finished', '…')}",
                            f" · input {record.get('input_file', '?')}"]))]
    for key in ("stop_reason", "failure", "ceilings_doubt"):
        if record.get(key):
            lines.append(tag("p", f"{key.replace('_', ' ')}: {record[key]}", class_="bad"))
    load = record.get("machine_load") or {}
    if load.get("loaded"):
        lines.append(tag("p", f"machine loaded while it ran: other processes took {100 * load['others_share']:.0f} % of "
                              f"the node's CPU time, steal {100 * load['steal_share']:.0f} %", class_="bad"))
    return join([tag("h1", f"miniGPU run {name}")] + lines)


def provenance(record):
    v, k, h, b = (record.get(x) or {} for x in ("minigpu", "kokkos", "host", "build"))
    blas, threads, devices = (record.get(x) or {} for x in ("blas", "threads", "devices"))
    caches = ", ".join(f"{n} {size // 1024} KiB" for n, size in (h.get("cache_bytes") or {}).items())
    env = ", ".join(f"{n}={val}" for n, val in (record.get("environment") or {}).items() if val)
    pairs = [
        ("minigpu", f"{v.get('version', '?')} (git {v.get('git', '?')})"),
        ("Kokkos", f"{k.get('version', '?')}, backends {', '.join(k.get('backends', []))}, "
                   f"default {k.get('default_execution_space', '?')}"),
        ("host", f"{h.get('hostname', '?')}: {h.get('cpu', '?')}, {h.get('logical_cores', '?')} logical cores, "
                 f"{h.get('vector_isa', '?')}, {number((h.get('memory_bytes') or 0) / 2**30)} GiB"),
        ("caches", caches),
        ("build", f"{b.get('compiler', '?')} {b.get('type', '')} {b.get('flags', '')}"),
        ("BLAS", f"{blas.get('library', '?')} (kernels {blas.get('core', '?')})"),
        ("BLAS warning", blas.get("warning")),
        ("threads per rank", ", ".join(f"{n} {c}" for n, c in threads.items())),
        ("environment", env or "none of the thread variables set"),
        ("devices", ", ".join(devices.get("gpus", [])) or "no GPU"),
        ("overrides", ", ".join(record.get("overrides") or [])),
        ("resumed from", record.get("resumed_from")),
        ("ceilings", record.get("ceilings_source")),
    ]
    return join([tag("h2", "Provenance", id="provenance"), definitions(pairs)])


def rank_map(record):
    mpi = record.get("mpi") or {}
    rows = [[r.get("rank"), r.get("host"), r.get("local_rank"), r.get("device_id"), r.get("device"),
             r.get("binding", ""), r.get("cores", ""), r.get("threads", "")]
            for r in mpi.get("ranks", [])]
    return join([tag("h2", f"Rank map ({mpi.get('size', len(rows))} ranks)", id="ranks"),
                 table(["rank", "host", "local rank", "device id", "device", "chosen by", "cores", "threads"],
                       rows)])


def findings(record):
    rows, classes = [], []
    for f in record.get("findings", []):
        ci = f.get("ci95")
        rows.append([f.get("experiment"), f.get("name"), value_of(f),
                     f"{interval(*ci, mark=100)} {f.get('unit', '')}" if ci else None,
                     # No value is not "ok": "n/a", its note saying why (a flag still shows).
                     "n/a" if f.get("value") is None and f.get("reliable") is not False else flag(f),
                     f.get("note")])
        classes.append("unreliable" if f.get("reliable") is False else None)
    return join([tag("h2", "Findings", id="findings"),
                 tag("p", "Each finding as the run stated it; its note says which ceiling a rate is a share of."),
                 table(["experiment", "finding", "value", "95 % interval", "reliable", "note"], rows, classes)])


def ceilings(record):
    rows = [[c.get("name"), c.get("label"), value_of(c), c.get("how")]
            for c in record.get("ceilings") or []]
    return join([tag("h2", "Ceilings", id="ceilings"),
                 tag("p", record.get("ceilings_source") or "no ceilings recorded"),
                 table(["ceiling", "what", "value", "how"], rows) if rows else ""])


def rate(row):
    if row.get("gflops"):
        return f"{number(row['gflops'])} GFLOP/s"
    if row.get("gbps"):
        return f"{number(row['gbps'])} GB/s"
    return None


def spread(row):
    """The 95 % interval of the median and how far it reaches from the median (console ±%)."""
    s = row.get("seconds") or {}
    lo, hi, med = *(s.get("median_ci95") or (None, None)), s.get("median")
    if lo is None or not med:
        return None
    reach = max(med - lo, hi - med) / med * 100
    return f"{interval(lo, hi, show=seconds)} ±{number(reach, 2)} %"


def share(row):
    """The row's share of its ceiling; above 100 % it is past a bound the row cannot pass:
    flagged, with the reason in the cell, as the console prints it (a title alone is lost on
    paper and on a phone)."""
    c = row.get("ceiling")
    if not c:
        return None
    above = (c.get("percent") or 0) > 100
    scale = c.get("scale") or 1  # counted k times (k ranks, each on its own device): said so
    name = f"{scale} x {c.get('name')}" if scale > 1 else c.get("name")
    return tag("span", f"{number_apart(c.get('percent'), 100)} % of {name}" +
               (f" (! above its ceiling: {c.get('above_because')})" if above else ""),
               title=c.get("of"), class_="bad" if above else None)


def error(row):
    """The row's error against float64 where its precision rounds (bfloat16, float16, TF32)."""
    e = row.get("error")
    if not e:
        return None
    return f"{number(e.get('max_abs_rel'), 2)} max-abs, {number(e.get('frobenius_rel'), 2)} Frobenius"


def results(record):
    headers = ["experiment", "case", "device", "dtype", "reps", "median", "95 % interval of the median", "cv",
               "ranks' mean (min–max)", "rate", "of ceiling", "model", "error vs float64", "reliable", "verified"]
    rows, classes = [], []
    for r in record.get("results", []):
        s, ranks, values = r.get("seconds") or {}, r.get("rank_mean_seconds") or {}, r.get("values") or {}
        model = (f"{seconds(values['model_s'])} ({number(values.get('model_error_pct'), 2)} %)"
                 if "model_s" in values else None)
        verified = tag("span", "ok" if r.get("verified") else "FAIL", title=r.get("check"),
                       class_=None if r.get("verified") else "bad")
        rows.append([r.get("experiment"), r.get("case"), r.get("device"), r.get("dtype"), r.get("repetitions"),
                     seconds(s.get("median")), spread(r), percent((s.get("cv") or 0) * 100, 2),
                     f"{seconds(ranks.get('min'))} – {seconds(ranks.get('max'))}" if ranks else None,
                     rate(r), share(r), model, error(r), flag(r), verified])
        classes.append("failed" if r.get("verified") is False else
                       "unreliable" if r.get("reliable") is False else None)
    return join([tag("h2", "Results", id="results"),
                 tag("p", "Times are each repetition's slowest rank; the interval is the distribution-free "
                          "95 % interval of the median; model: the α–β–γ prediction and its error."),
                 table(headers, rows, classes)])


def model(record):
    """matmul_scaling's cost model: its measured inputs and predicted curves, beside the rows."""
    m = record.get("scaling_model")
    if not m:
        return Markup("")
    links = [(name, m.get(name)) for name in ("intra_node", "inter_node")]
    pairs = [(f"{name.replace('_', '-')} link",
              f"α = {seconds(l.get('alpha_s'))}, β = {number(l.get('beta_s_per_byte'))} s/B ({l.get('source')})"
              if l else "not measured in this run") for name, l in links]
    pairs += [(f"GEMM {dt}", f"{number(g.get('flops_per_s', 0) / 1e9)} GFLOP/s ({g.get('source')})")
              for dt, g in (m.get("gemm") or {}).items()]
    pairs.append(("GPUs per node", m.get("gpus_per_node")))
    curves = m.get("curves") or {}
    ps = sorted({pt["p"] for pts in curves.values() for pt in pts})
    rows = [[name, pts[0].get("n") if pts else None] + [seconds(next((pt["model_s"] for pt in pts if pt["p"] == p),
                                                                     None)) for p in ps]
            for name, pts in curves.items()]
    measured = [[r.get("case"), seconds((r.get("seconds") or {}).get("median")), seconds(r["values"]["model_s"]),
                 percent(r["values"].get("model_error_pct"), 2)]
                for r in record.get("results", []) if "model_s" in (r.get("values") or {})]
    return join([tag("h2", "Scaling model", id="model"),
                 tag("p", "matmul_scaling's α–β–γ model (latency α, time per byte β, GEMM rate), "
                          "its inputs measured in this same run."),
                 definitions(pairs),
                 table(["curve", "n"] + [f"p = {p}" for p in ps], rows, caption="predicted time per multiply"),
                 table(["case", "measured median", "model", "model error"], measured,
                       caption="measured against the model") if measured else ""])
