#!/usr/bin/env python3
"""cairn's side-by-side benchmark. Use run_bench.sh, which builds what this needs and passes
the paths; `run_bench.sh --help` lists the options.

Starts cairn (SQLite), Apache Iceberg's reference REST server (SQLite) and, when given a
PostgreSQL URL, cairn on PostgreSQL, each on a free 127.0.0.1 port with its data under one
temporary directory (one filesystem for all). Runs every workload against each server with the
same load generator, several times, interleaving the servers run by run; prints one table of
medians and ratios (cairn / reference) with the targets of issue #6, and writes results.md,
results.json and latency_vs_snapshots.png to the output directory.
"""
import argparse
import datetime
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import report, servers  # noqa: E402
from benchlib.loadgen import Holder, Loadgen  # noqa: E402

# Quick: what CI can afford (a few minutes). Full: what the README's results come from.
PROFILES = {
    "quick": dict(runs=3, sizes=[10, 1000, 10000], load_s=0.5, load_max=200000,
                  commit_size_max=20, hot_s=15.0, hot_max=150, multi_s=15.0, multi_max=600,
                  ns_max=200, ns_s=1.0, tables_per_run=200, tables_s=30.0,
                  list_s=1.0, list_max=30, hold_runs=2, hold_conns=1000, hold_slow=100,
                  hold_ready_s=3.0, hold_load_s=1.5, hold_timeout_s=3, floor_s=0.5,
                  startup_runs=3, idle_ms=500, warmup_s=1.0),
    "full": dict(runs=3, sizes=[10, 1000, 10000, 100000], load_s=2.0, load_max=500000,
                 commit_size_max=50, hot_s=30.0, hot_max=500, multi_s=60.0, multi_max=3000,
                 ns_max=1000, ns_s=5.0, tables_per_run=3400, tables_s=120.0,
                 list_s=3.0, list_max=100, hold_runs=3, hold_conns=1000, hold_slow=100,
                 hold_ready_s=10.0, hold_load_s=5.0, hold_timeout_s=10, floor_s=3.0,
                 startup_runs=5, idle_ms=1000, warmup_s=3.0),
}
BIG = 100000          # tables this large: a few commits per run (each rewrites ~58 MB)
BIG_COMMITS = 3
LOAD_CLIENTS = 4
DOC_BYTES_PER_SNAPSHOT = 580  # metadata JSON per snapshot of the benchmark's appends
HOT_WRITERS = [1, 4, 16]
MULTI_TABLES, MULTI_WRITERS = 100, 16
NS = "bench"          # namespace of the loadTable and commit tables
WIDE = "wide"         # namespace that the create-table workload fills, then listed


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


class Bench:
    def __init__(self, args, profile):
        self.args = args
        self.p = profile
        self.workdir = args.workdir
        self.lg = Loadgen(args.loadgen, open(os.path.join(args.out, "loadgen.log"), "w"))
        self.servers = [servers.Cairn(self.workdir, args.cairn),
                        servers.Reference(self.workdir, args.ref_classpath, pool=16)]
        if args.postgres:
            self.servers.append(servers.Cairn(self.workdir, args.cairn, db_url=args.postgres))
        self.results = {s.name: {} for s in self.servers}
        self.results["floors"] = {}

    # --- bookkeeping -------------------------------------------------------------------
    def record(self, server, key, value):
        name = server if isinstance(server, str) else server.name
        self.results[name].setdefault(key, []).append(value)
        if "error" in value:
            log(f"  {name} {key}: {value['error'][:200]}")

    def call(self, server, sub, bound_s=900, **flags):
        return self.lg.run(sub, bound_s, port=server.port, **flags)

    def order(self, run):
        k = run % len(self.servers)
        return self.servers[k:] + self.servers[:k]

    # --- phases ------------------------------------------------------------------------
    def floors(self):
        """Durable small-file creates in the data filesystem, CAS on the metastores, and the two
        in sequence (the physical work of one commit), with 1 and 16 threads."""
        d = os.path.join(self.workdir, "floors")
        dur = self.p["floor_s"]
        metastores = [("sqlite", mode) for mode in ("", "mutex", "group")]
        if self.args.postgres:
            metastores.append(("pg", ""))
        for run in range(self.p["runs"]):
            for threads in (1, 16):
                fdir = os.path.join(d, f"fsync_{run}_{threads}")
                os.makedirs(fdir)
                self.record("floors", f"fsync/{threads}",
                            self.lg.run("fsync-floor", 300, dir=fdir, threads=threads,
                                        duration=dur))
                for db, mode in metastores:
                    if threads == 1 and mode:
                        continue  # one thread: nothing to arbitrate
                    for kind in ("cas", "commit"):
                        tag = f"{kind}_{db}_{run}_{threads}{mode}"
                        where = ({"postgres": self.args.postgres} if db == "pg"
                                 else {"sqlite": os.path.join(d, tag + ".db")})
                        if kind == "commit":
                            where["dir"] = os.path.join(d, tag)
                            os.makedirs(where["dir"])
                        self.record("floors", f"{kind}_{db}/{threads}{mode}",
                                    self.lg.run(f"{kind}-floor", 300, threads=threads,
                                                mode=mode or None, duration=dur, **where))
            # The durable write of one whole metadata document of each table size (~580 bytes
            # per snapshot): the part of a commit's time that is the disk's.
            for size in self.p["sizes"]:
                fdir = os.path.join(d, f"doc_{run}_{size}")
                os.makedirs(fdir)
                self.record("floors", f"fsync_doc/{size}",
                            self.lg.run("fsync-floor", 300, dir=fdir, threads=1,
                                        bytes=size * DOC_BYTES_PER_SNAPSHOT + 2000,
                                        duration=self.p["floor_s"], max=20))
                for name in os.listdir(os.path.join(fdir, "t0")):
                    os.unlink(os.path.join(fdir, "t0", name))

    def startups(self):
        """Process start to the first 200 from /v1/config, on an empty data directory."""
        for run in range(self.p["startup_runs"]):
            for s in self.order(run):
                port = servers.free_port()
                data = os.path.join(self.workdir, "startup", s.name, str(run))
                os.makedirs(data)
                self.record(s, "startup",
                            self.lg.run("startup", 180, port=port, env=s.env(port, data),
                                        idle_ms=self.p["idle_ms"],
                                        log=os.path.join(data, "server.log"),
                                        command=s.command(port, data)))

    def setup(self, s):
        """The loadTable tables (populated by batched commits: setup only) and namespaces."""
        for size in self.p["sizes"]:
            log(f"  {s.label}: populating a table with {size} snapshots")
            self.record(s, f"populate/{size}",
                        self.call(s, "populate", bound_s=3600, ns=NS, table=f"l{size}",
                                  snapshots=size))
        self.call(s, "populate", ns=WIDE, table="seed", snapshots=0)

    def warmup(self, s):
        """A short pass of the main workloads, not recorded (the JVM compiles hot code)."""
        w = self.p["warmup_s"]
        self.call(s, "load", ns=NS, table="l1000", clients=LOAD_CLIENTS, duration=w,
                  max=self.p["load_max"])
        self.call(s, "populate", ns=NS, table="warm", snapshots=10)
        self.call(s, "commit", ns=NS, tables="warm", writers=4, duration=w, max=100000)
        self.call(s, "create-tables", ns=NS, prefix_name="warm", clients=4, duration=w, max=200)

    def load_tables(self, s):
        for size in self.p["sizes"]:
            for mode in ("all", "refs"):
                for inm in (False, True):
                    key = f"load/{size}/{mode}/{'inm' if inm else 'plain'}"
                    self.record(s, key, self.call(
                        s, "load", ns=NS, table=f"l{size}", snapshots=mode, if_none_match=inm,
                        clients=LOAD_CLIENTS, duration=self.p["load_s"], max=self.p["load_max"]))

    def commit_vs_size(self, s, run):
        for size in self.p["sizes"]:
            if size >= BIG:
                table, n = f"l{size}", BIG_COMMITS
            else:
                # Fewer commits on larger tables (each costs more); at least 3.
                most = self.p["commit_size_max"]
                n = max(3, min(most, most * 1000 // size))
                table = f"cs{size}_r{run}"
                self.call(s, "populate", bound_s=1800, ns=NS, table=table, snapshots=size)
            self.record(s, f"commit_size/{size}",
                        self.call(s, "commit", ns=NS, tables=table, writers=1, duration=120,
                                  max=n))

    def adjacent_floors(self, s, run):
        """The commit floor (durable file + CAS, no HTTP) on this server's metastore kind, measured
        right before its commit workloads: the disk of a shared machine drifts, so the targets
        compare commits with a floor measured minutes apart at most."""
        if s.name == "reference":
            return
        dur = self.p["floor_s"]
        pg = s.name == "cairn-pg"
        for threads, mode in ((1, ""), (16, "")) + (() if pg else ((16, "mutex"), (16, "group"))):
            # In the server's own warehouse: same filesystem, same directory tree.
            where = os.path.join(s.dir, "data", "warehouse", "_floors", f"{run}_{threads}{mode}")
            os.makedirs(where)
            db = ({"postgres": self.args.postgres} if pg
                  else {"sqlite": os.path.join(where, "cas.db")})
            self.record(s, f"floor_commit/{threads}{mode}",
                        self.lg.run("commit-floor", 300, dir=where, threads=threads,
                                    mode=mode or None, duration=dur, **db))

    def commits(self, s, run):
        """Appends bounded by count (and a duration cap), on fresh tables of 10 snapshots, so
        that both servers commit to tables of the same sizes."""
        self.adjacent_floors(s, run)
        for writers in HOT_WRITERS:
            table = f"hot_r{run}_w{writers}"
            self.call(s, "populate", ns=NS, table=table, snapshots=10)
            self.record(s, f"hot/{writers}",
                        self.call(s, "commit", ns=NS, tables=table, writers=writers,
                                  duration=self.p["hot_s"], max=self.p["hot_max"]))
        prefix = f"m_r{run}"
        self.call(s, "create-tables", ns=NS, prefix_name=prefix, clients=4, duration=120,
                  max=MULTI_TABLES)
        tables = ",".join(f"{prefix}_{i}" for i in range(MULTI_TABLES))
        self.record(s, f"multi/{MULTI_WRITERS}",
                    self.call(s, "commit", ns=NS, tables=tables, writers=MULTI_WRITERS,
                              duration=self.p["multi_s"], max=self.p["multi_max"]))

    def creates(self, s, run):
        self.record(s, "create_namespace",
                    self.call(s, "create-namespaces", prefix_name=f"ns_r{run}", clients=4,
                              duration=self.p["ns_s"], max=self.p["ns_max"]))
        self.record(s, "create_table",
                    self.call(s, "create-tables", ns=WIDE, prefix_name=f"t_r{run}", clients=4,
                              duration=self.p["tables_s"], max=self.p["tables_per_run"]))

    def list_tables(self, s):
        self.record(s, "list_tables",
                    self.call(s, "list-tables", ns=WIDE, clients=4, duration=self.p["list_s"],
                              max=self.p["list_max"]))

    def hold(self, s, run):
        """loadTable and commits with and without many extra keep-alive connections."""
        for variant, conns in (("base", 0), ("conns", self.p["hold_conns"])):
            table = f"hold_r{run}_{variant}"
            self.call(s, "populate", ns=NS, table=table, snapshots=10)
            h = Holder(self.lg, self.p["hold_ready_s"] + 30, port=s.port, conns=conns,
                       slow=self.p["hold_slow"] if conns else 0, duration=900,
                       ready_s=self.p["hold_ready_s"], probe_ms=50,
                       probe_cap_ms=self.p["hold_timeout_s"] * 1000)
            t = self.p["hold_timeout_s"]
            self.record(s, f"hold/{variant}/load", self.call(
                s, "load", bound_s=300, ns=NS, table="l1000", clients=LOAD_CLIENTS,
                duration=self.p["hold_load_s"], max=self.p["load_max"], timeout_s=t))
            self.record(s, f"hold/{variant}/commit", self.call(
                s, "commit", bound_s=300, ns=NS, tables=table, writers=1,
                duration=self.p["hold_load_s"], max=1000000, timeout_s=t))
            self.record(s, f"hold/{variant}/probe", h.finish())
            if not s.wait_responsive(120):
                log(f"  {s.label} did not recover within 120 s after the connections closed")

    # --- the whole benchmark -----------------------------------------------------------
    def run(self):
        t0 = time.monotonic()
        log("physical floors")
        self.floors()
        log("startup times")
        self.startups()
        for s in self.servers:
            log(f"starting {s.label}")
            s.start()
            time.sleep(1)
            self.record(s, "rss_idle", {"rss_kib": s.rss_kib()})
        try:
            for s in self.servers:
                log(f"setup on {s.label}")
                self.setup(s)
                self.warmup(s)
            for run in range(self.p["runs"]):
                for s in self.order(run):
                    log(f"run {run + 1}/{self.p['runs']}: {s.label}")
                    self.load_tables(s)
                    self.commit_vs_size(s, run)
                    self.commits(s, run)
                    self.creates(s, run)
            for run in range(self.p["hold_runs"]):
                for s in self.order(run):
                    log(f"list tables and keep-alive connections, run {run + 1}: {s.label}")
                    self.list_tables(s)
                    self.hold(s, run)
            for s in self.servers:
                self.record(s, "rss_end", {"rss_kib": s.rss_kib()})
        finally:
            for s in self.servers:
                s.stop()
        return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--report", metavar="RESULTS_JSON",
                    help="only re-render results.md and the plot from a results.json")
    ap.add_argument("--loadgen")
    ap.add_argument("--cairn")
    ap.add_argument("--ref-classpath", help="file holding the Java classpath")
    ap.add_argument("--postgres", help="PostgreSQL URL: also run cairn on it")
    ap.add_argument("--workdir", help="an empty temporary directory")
    ap.add_argument("--out", help="where results.{md,json} and the PNG go")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--runs", type=int, help="override the profile's number of runs")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if any request to a cairn server failed (a smoke test; the "
                         "figures themselves are never pass/fail)")
    ap.add_argument("--command", default="tests/bench/run_bench.sh",
                    help="the command line to print as the way to reproduce")
    args = ap.parse_args()
    if args.report:
        with open(args.report) as f:
            saved = json.load(f)
        out = os.path.dirname(os.path.abspath(args.report))
        write_report(saved["results"], saved["meta"], out)
        return
    for name in ("loadgen", "cairn", "ref_classpath", "workdir", "out"):
        if not getattr(args, name):
            ap.error(f"--{name.replace('_', '-')} is required")
    with open(args.ref_classpath) as f:
        args.ref_classpath = f.read().strip()
    profile = dict(PROFILES["quick" if args.quick else "full"])
    if args.runs:
        profile["runs"] = profile["hold_runs"] = args.runs
    os.makedirs(args.out, exist_ok=True)

    # `timeout` and Ctrl-C: unwind, so that every server started is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    bench = Bench(args, profile)
    started = datetime.datetime.now(datetime.timezone.utc)
    elapsed = bench.run()
    meta = report.machine(args.workdir)
    meta.update({"date": started.strftime("%Y-%m-%d %H:%M UTC"), "elapsed_s": elapsed,
                 "mode": "quick" if args.quick else "full", "runs": profile["runs"],
                 "command": args.command, "profile": profile,
                 "servers": {s.name: s.label for s in bench.servers}})
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"meta": meta, "results": bench.results}, f, indent=1)
    write_report(bench.results, meta, args.out)
    log(f"done in {elapsed / 60:.1f} min")
    if args.check:
        problems = failures(bench.results, [s.name for s in bench.servers if s.name != "reference"])
        for p in problems:
            log(f"check: {p}")
        if problems:
            sys.exit(1)
        log("check: every request to cairn succeeded")


def failures(results, names):
    """What went wrong on the servers `names`: workloads that failed, requests that got an
    error or timed out, probes of new connections that got no answer."""
    out = []
    for name in names:
        if not results.get(name):
            out.append(f"{name}: no results")
        for key, runs in results.get(name, {}).items():
            for i, r in enumerate(runs):
                if "error" in r:
                    out.append(f"{name} {key} run {i + 1}: {r['error'][:200]}")
                if r.get("errors"):
                    out.append(f"{name} {key} run {i + 1}: request errors {r['errors']}")
                probe = r.get("probe") or {}
                if probe.get("failures"):
                    out.append(f"{name} {key} run {i + 1}: {probe['failures']} probes unanswered")
    return out


def write_report(results, meta, out):
    text = report.markdown(results, meta)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text)
    plotted = report.plot(results, meta, os.path.join(out, "latency_vs_snapshots.png"))
    print(text)
    log(f"wrote {out}/results.md, results.json"
        + (", latency_vs_snapshots.png" if plotted else " (no plot: matplotlib missing)"))


if __name__ == "__main__":
    main()
