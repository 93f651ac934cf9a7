"""Medians, ratios, the targets of issue #6, the markdown tables and the plot."""
import os
import platform
import statistics
import subprocess

BIG = 100000


# --- numbers ---------------------------------------------------------------------------
def runs_of(results, server, key):
    return [r for r in results.get(server, {}).get(key, []) if "error" not in r]


def median(results, server, key, field):
    """Median of one field over the successful runs, or None."""
    vals = [r[field] for r in runs_of(results, server, key) if r.get(field) is not None]
    return statistics.median(vals) if vals else None


def rate(results, server, key):
    return median(results, server, key, "per_s")


def floor_rate(results, threads, db, server=None):
    """Commits/s of the physical work of a commit (one durable new file, then one metastore
    CAS; `commit-floor`) with `threads` threads: the one measured right before `server`'s
    commit workloads when there is one, else the one of the floors phase. On SQLite with
    several threads, the best of its three ways to take concurrent swaps (own transactions
    arbitrated by SQLite's busy handler, an in-process mutex, group commit)."""
    modes = ("", "mutex", "group") if db == "sqlite" and threads > 1 else ("",)
    for source, prefix in ((server, "floor_commit"), ("floors", f"commit_{db}")):
        if source is None:
            continue
        rates = [rate(results, source, f"{prefix}/{threads}{m}") for m in modes]
        rates = [r for r in rates if r]
        if rates:
            return max(rates)
    return None


def ratio(a, b):
    return a / b if a is not None and b else None


# --- formatting ------------------------------------------------------------------------
def fnum(v, digits=3):
    if v is None:
        return "—"
    if v >= 100:
        return f"{v:,.0f}".replace(",", " ")
    return f"{v:.{digits}g}"


def fms(v):
    return "—" if v is None else (f"{v:.2f}" if v < 10 else fnum(v))


def fratio(v):
    return "—" if v is None else (f"{v:.2f}×" if v < 10 else f"{v:.0f}×")


def fmib(kib):
    return "—" if kib is None else f"{kib / 1024:.1f} MiB"


def cell(results, server, key, with_rate=True):
    runs = runs_of(results, server, key)
    total = len(results.get(server, {}).get(key, []))
    if not runs:
        if not total:
            return "—"
        errors = results[server][key]
        return "failed: " + errors[0]["error"][:60].replace("|", "/")
    if all(r.get("count", 1) == 0 for r in runs):
        text = "no responses"
    else:
        r = rate(results, server, key) if with_rate else None
        p50 = median(results, server, key, "p50_ms")
        p99 = median(results, server, key, "p99_ms")
        text = (f"{fnum(r)}/s · " if with_rate else "") + f"{fms(p50)} / {fms(p99)} ms"
    errors = sum(sum(r.get("errors", {}).values()) for r in runs)
    notes = []
    if errors:
        notes.append(f"{errors} errors/timeouts")
    if len(runs) < total:
        notes.append(f"{total - len(runs)} of {total} runs failed")
    return text + (f" ({', '.join(notes)})" if notes else "")


# --- the tables ------------------------------------------------------------------------
def machine(workdir):
    cores = os.cpu_count()
    mem = None
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) / 1024 / 1024
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    fs = subprocess.run(["findmnt", "-no", "FSTYPE", "-T", workdir], capture_output=True,
                        text=True).stdout.strip()
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    return {"cores": cores, "mem_gib": round(mem, 1) if mem else None, "cpu": cpu,
            "kernel": platform.release(), "fs": fs,
            "java": java.splitlines()[0] if java else ""}


def targets(results, meta, server):
    """[(target, value text, met: True/False/None)] for one cairn server."""
    ref = "reference"
    sizes = meta["profile"]["sizes"]
    top = max(sizes)
    db = "pg" if server == "cairn-pg" else "sqlite"
    out = []

    key = "load/1000/all/plain"
    r = ratio(rate(results, server, key), rate(results, ref, key))
    out.append(("loadTable req/s at 1 000 snapshots ≥ 10× reference", fratio(r),
                None if r is None else r >= 10))

    hi = median(results, server, f"load/{top}/all/inm", "p99_ms")
    lo = median(results, server, "load/10/all/inm", "p99_ms")
    r = ratio(hi, lo)
    label = f"{top:,}".replace(",", " ")
    note = "" if top >= BIG else f" (quick mode: at {label}, not 100 000)"
    out.append((f"loadTable p99 with If-None-Match at 100 000 snapshots ≤ 2× at 10{note}",
                f"{fms(hi)} ms vs {fms(lo)} ms = {fratio(r)}", None if r is None else r <= 2))

    floor1 = floor_rate(results, 1, db, server)
    got = rate(results, server, "commit_size/10")
    r = ratio(got, floor1)
    out.append(("one-writer commits on a small table (10 snapshots) ≥ 0.75× physical floor "
                "(1 thread)",
                f"{fnum(got)}/s vs floor {fnum(floor1)}/s = {fratio(r)}",
                None if r is None else r >= 0.75))

    floor16 = floor_rate(results, 16, db, server)
    got = rate(results, server, "multi/16")
    r = ratio(got, floor16)
    out.append(("16 writers on distinct tables ≥ 0.7× physical floor (16 threads)",
                f"{fnum(got)}/s vs floor {fnum(floor16)}/s = {fratio(r)}",
                None if r is None else r >= 0.7))

    r = ratio(rate(results, server, "hot/4"), rate(results, ref, "hot/4"))
    out.append(("hot-table commits/s with 4 writers ≥ 5× reference", fratio(r),
                None if r is None else r >= 5))

    with_c = median(results, server, "hold/conns/load", "p99_ms")
    base = median(results, server, "hold/base/load", "p99_ms")
    ok_runs = runs_of(results, server, "hold/conns/load")
    failed = not ok_runs or any(r.get("count", 0) == 0 or r.get("errors") for r in ok_runs)
    r = ratio(with_c, base)
    text = f"{fms(with_c)} ms vs {fms(base)} ms = {fratio(r)}"
    if failed:
        text += " (requests failed or timed out with the connections open)"
    out.append(("with 1 000 extra keep-alive connections, loadTable p99 ≤ 2× without", text,
                None if r is None and not failed else (not failed and r <= 2)))

    probes = runs_of(results, server, "hold/conns/probe")
    worst = max((p["probe"]["max_ms"] for p in probes), default=None)
    fails = sum(p["probe"].get("failures", 0) for p in probes)
    text = f"slowest {fms(worst)} ms" + (f", {fails} probes got no answer within the cap"
                                         if fails else "")
    out.append(("…and no new connection waits > 100 ms for its first response", text,
                None if worst is None else worst <= 100 and fails == 0))

    st = median(results, server, "startup", "startup_ms")
    out.append(("startup to first response < 100 ms", f"{fms(st)} ms",
                None if st is None else st < 100))

    idle = median(results, server, "startup", "rss_idle_kib")
    out.append(("idle RSS < 20 MiB", fmib(idle), None if idle is None else idle < 20 * 1024))

    c_hi = median(results, server, f"commit_size/{top}", "p50_ms")
    c_lo = median(results, server, "commit_size/10", "p50_ms")
    out.append((f"commit time growth from 10 to {label} snapshots (reported)",
                f"{fms(c_lo)} → {fms(c_hi)} ms = {fratio(ratio(c_hi, c_lo))}", None))
    return out


def mark(met):
    return "reported" if met is None else ("**met**" if met else "**not met**")


def markdown(results, meta):
    servers = meta["servers"]
    pg = "cairn-pg" in servers
    sizes = meta["profile"]["sizes"]
    L = []
    L.append(f"Measured {meta['date']} ({meta['mode']} mode, {meta['runs']} runs per figure, "
             f"{meta['elapsed_s'] / 60:.0f} min) on {meta['cores']} cores, "
             f"{meta['mem_gib']} GiB memory ({meta['cpu']}; Linux {meta['kernel']}; "
             f"data on {meta['fs']}; {meta['java']}), with `{meta['command']}`.")
    L.append("")
    L.append("#### Targets")
    L.append("")
    cols = ["cairn"] + (["cairn (PostgreSQL)"] if pg else [])
    L.append("| Target | " + " | ".join(cols) + " |")
    L.append("|---|" + "---|" * len(cols))
    names = ["cairn", "cairn-pg"] if pg else ["cairn"]
    rows = {name: targets(results, meta, name) for name in names}
    for i, (label, _, _) in enumerate(rows["cairn"]):
        cells = [f"{rows[n][i][1]} — {mark(rows[n][i][2])}" for n in rows]
        L.append(f"| {label} | " + " | ".join(cells) + " |")
    L.append("")
    L.append("#### Side by side (medians; cells are rate · p50 / p99 latency; ratio of rates)")
    L.append("")
    head = ["Workload", "cairn", "reference", "cairn ÷ ref"]
    if pg:
        head += ["cairn (PostgreSQL)", "PG ÷ ref"]
    L.append("| " + " | ".join(head) + " |")
    L.append("|" + "---|" * len(head))

    def row(label, key, with_rate=True, value=None):
        if value is None:
            cells = [cell(results, n, key, with_rate) for n in ["cairn", "reference"]]
            r = [ratio(rate(results, "cairn", key), rate(results, "reference", key))]
            extra = []
            if pg:
                pg_ratio = ratio(rate(results, "cairn-pg", key), rate(results, "reference", key))
                extra = [cell(results, "cairn-pg", key, with_rate), fratio(pg_ratio)]
            line = [label] + cells + [fratio(r[0]) if with_rate else "—"] + extra
        else:
            line = [label] + value
        L.append("| " + " | ".join(line) + " |")

    for size in sizes:
        n = f"{size:,}".replace(",", " ")
        for mode in ("all", "refs"):
            for inm in ("plain", "inm"):
                what = f"loadTable {n} snapshots, snapshots={mode}"
                if inm == "inm":
                    what += ", If-None-Match (304)"
                row(what, f"load/{size}/{mode}/{inm}")
    for size in sizes:
        n = f"{size:,}".replace(",", " ")
        row(f"commit, 1 writer, table of {n} snapshots", f"commit_size/{size}")
    for w in (1, 4, 16):
        row(f"commits, one hot table, {w} writer{'s' if w > 1 else ''} (retry on 409)", f"hot/{w}")
    row("commits, 100 tables, 16 writers", "multi/16")
    for threads, mode, label in ((1, "", "1 thread"), (16, "", "16 threads, a transaction each"),
                                 (16, "mutex", "16 threads, mutex"),
                                 (16, "group", "16 threads, group commit")):
        row(f"commit floor measured next to the commits, {label} (no HTTP)",
            f"floor_commit/{threads}{mode}")
    row("create namespace (4 clients)", "create_namespace")
    row("create table (4 clients)", "create_table")
    listed = {n: median(results, n, "list_tables", "tables") for n in servers}
    row("list tables, whole namespace of " + "/".join(fnum(listed.get(n)) for n in servers)
        + " tables (4 clients)", "list_tables")
    row("loadTable 1 000 snapshots, without extra connections", "hold/base/load")
    row("loadTable 1 000 snapshots, with 1 000 extra keep-alive connections", "hold/conns/load")
    row("commits, 1 writer, without extra connections", "hold/base/commit")
    row("commits, 1 writer, with 1 000 extra keep-alive connections", "hold/conns/commit")
    for variant, label in (("base", "without"), ("conns", "with")):
        cells = []
        for n in servers:
            probes = runs_of(results, n, f"hold/{variant}/probe")
            if not probes:
                cells.append("—")
                continue
            p99 = statistics.median(p["probe"]["p99_ms"] for p in probes)
            worst = max(p["probe"]["max_ms"] for p in probes)
            fails = sum(p["probe"].get("failures", 0) for p in probes)
            answered = statistics.median(p.get("answered", 0) for p in probes)
            conns = probes[0].get("conns")
            text = f"p99 {fms(p99)} ms, max {fms(worst)} ms"
            if fails:
                text += f", {fails} unanswered"
            if variant == "conns":
                text += f"; {fnum(answered)} of {conns} held connections answered"
            cells.append(text)
        value = cells[:2] + ["—"] + ([cells[2], "—"] if pg else [])
        row(f"new connection's first response, {label} extra connections", None, value=value)
    for key, label in (("startup_ms", "start to first /v1/config"),):
        cells = [f"{fms(median(results, n, 'startup', key))} ms" for n in servers]
        value = cells[:2] + [fratio(ratio(median(results, "cairn", "startup", key),
                                          median(results, "reference", "startup", key)))]
        if pg:
            value += [cells[2], "—"]
        row(label, None, value=value)
    for key, field, label in (("startup", "rss_idle_kib", "resident memory, idle"),
                              ("rss_end", "rss_kib", "resident memory, end of the load")):
        vals = [median(results, n, key, field) for n in servers]
        value = [fmib(vals[0]), fmib(vals[1]), fratio(ratio(vals[0], vals[1]))]
        if pg:
            value += [fmib(vals[2]), "—"]
        row(label, None, value=value)

    L.append("")
    L.append("#### Physical floors (same run, same filesystem)")
    L.append("")
    L.append("| Floor | 1 thread | 16 threads |")
    L.append("|---|---|---|")

    def frow(label, key1, key16):
        c1 = cell(results, "floors", key1) if key1 else "—"
        c16 = cell(results, "floors", key16) if key16 else "—"
        L.append(f"| {label} | {c1} | {c16} |")

    frow("durable small-file creates (4 KiB: write, fdatasync, link, fsync dir)",
         "fsync/1", "fsync/16")
    frow("SQLite CAS, a transaction per swap (WAL, synchronous=FULL, BEGIN IMMEDIATE)",
         "cas_sqlite/1", "cas_sqlite/16")
    frow("SQLite CAS, threads taking turns on an in-process mutex", None, "cas_sqlite/16mutex")
    frow("SQLite CAS, group commit (one committer batches the pending swaps)", None,
         "cas_sqlite/16group")
    if pg:
        frow("PostgreSQL CAS, a transaction per swap", "cas_pg/1", "cas_pg/16")
    frow("**commit floor, SQLite**: durable file + CAS, a transaction each", "commit_sqlite/1",
         "commit_sqlite/16")
    frow("**commit floor, SQLite**: durable file + CAS, mutex", None, "commit_sqlite/16mutex")
    frow("**commit floor, SQLite**: durable file + CAS, group commit", None,
         "commit_sqlite/16group")
    if pg:
        frow("**commit floor, PostgreSQL**: durable file + CAS", "commit_pg/1", "commit_pg/16")
    for size in sizes:
        n = f"{size:,}".replace(",", " ")
        frow(f"durable write of one metadata file of {n} snapshots (~{size * 580 / 1e6:.2g} MB)",
             f"fsync_doc/{size}", None)
    L.append("")
    return "\n".join(L) + "\n"


def plot(results, meta, path):
    """loadTable and commit latency (p50, log-log) against snapshot count. False if no
    matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    sizes = meta["profile"]["sizes"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {"cairn": "C0", "reference": "C3", "cairn-pg": "C2"}
    for name, label in meta["servers"].items():
        c = styles.get(name, "k")
        for mode, ls in (("all", "-"), ("refs", "--")):
            ys = [median(results, name, f"load/{s}/{mode}/plain", "p50_ms") for s in sizes]
            pts = [(s, y) for s, y in zip(sizes, ys) if y]
            if pts:
                a.plot(*zip(*pts), ls, color=c, marker="o", label=f"{label}, snapshots={mode}")
        ys = [median(results, name, f"commit_size/{s}", "p50_ms") for s in sizes]
        pts = [(s, y) for s, y in zip(sizes, ys) if y]
        if pts:
            b.plot(*zip(*pts), "-", color=c, marker="o", label=label)
    for ax, title in ((a, "loadTable latency (p50)"), (b, "commit latency, 1 writer (p50)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("snapshots in the table")
        ax.set_ylabel("ms")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"cairn vs Apache Iceberg reference REST server — {meta['date']}, "
                 f"{meta['cores']} cores", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True
