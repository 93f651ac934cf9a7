#!/usr/bin/env python3
"""Exactly-once commit harness for cairn (Python 3 standard library only).

Starts R cairn replicas on one metastore (a throwaway PostgreSQL, or one SQLite file), runs N
client processes that commit appends to random replicas and record every attempt, injects
faults on a schedule (kill -9 + restart on the same port, SIGSTOP/SIGCONT, pg_terminate_backend
of cairn's sessions), stops the replicas cleanly and then checks the tables' metadata chains
against the recorded outcomes (see checker.py).

    exactly_once.py [--backend postgres|sqlite] [--duration S] [--mutant NAME] ...

With --retry-unknown N every commit carries an Idempotency-Key and an unknown outcome is re-sent
(same body, same key) to a random replica up to N times: the checker then also sees a commit run
twice (duplicated, or a 409 for a commit that applied) and reports keys left 'pending'.

Without --mutant the run passes when the checker finds no violation. With --mutant the servers
run with that deliberate bug (--test-mutant) and the run passes only when the checker FLAGS it:
a harness that cannot see a planted bug proves nothing.

Internal sub-command: `exactly_once.py client ...` is one client process.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import checker  # noqa: E402

NAMESPACE = "harness"
TABLE_WEIGHTS = [("hot0", 0.4), ("hot1", 0.4), ("cold0", 0.1), ("cold1", 0.1)]
SCHEMA = {"type": "struct", "schema-id": 0,
          "fields": [{"id": 1, "name": "id", "required": False, "type": "long"},
                     {"id": 2, "name": "payload", "required": False, "type": "string"}]}


def log(msg):
    print(f"[harness {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------- HTTP

def http_call(port, method, path, body=None, timeout=5.0, extra_headers=None):
    """(status, body bytes). Raises OSError/http.client exceptions on transport failure."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None
        headers = {"Connection": "close"}
        headers.update(extra_headers or {})
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def table_path(name):
    return f"/v1/namespaces/{NAMESPACE}/tables/{name}"


# -------------------------------------------------------------------------------------- client

REQUIRED_KEYS = ["format-version", "table-uuid", "location", "last-sequence-number",
                 "last-updated-ms", "last-column-id", "schemas", "current-schema-id",
                 "partition-specs", "default-spec-id", "sort-orders", "default-sort-order-id"]


def check_document(doc, full):
    """Problems with a LoadTableResult (empty list = complete and consistent)."""
    problems = []
    if not isinstance(doc, dict) or not isinstance(doc.get("metadata"), dict):
        return ["no metadata object"]
    if not doc.get("metadata-location"):
        problems.append("no metadata-location")
    md = doc["metadata"]
    for k in REQUIRED_KEYS:
        if k not in md:
            problems.append(f"missing {k}")
    snaps = md.get("snapshots", [])
    cur = md.get("current-snapshot-id")
    main = (md.get("refs") or {}).get("main")
    if cur is not None and cur != -1:
        ids = {s.get("snapshot-id") for s in snaps}
        if cur not in ids:
            problems.append(f"current snapshot {cur} not in snapshots")
        if not main or main.get("snapshot-id") != cur:
            problems.append("refs.main does not name the current snapshot")
    elif main:
        problems.append("refs.main set but no current snapshot")
    if full:
        # Every harness commit adds exactly one snapshot (sequence number last+1) and one
        # metadata-log entry (the tables keep the whole log).
        if len(snaps) != md.get("last-sequence-number"):
            problems.append(f"{len(snaps)} snapshots but last-sequence-number "
                            f"{md.get('last-sequence-number')}")
        if len(md.get("metadata-log", [])) != len(snaps):
            problems.append(f"{len(md.get('metadata-log', []))} metadata-log entries for "
                            f"{len(snaps)} snapshots")
        by_id = {s["snapshot-id"]: s for s in snaps}
        seen, sid = 0, cur
        while sid is not None and sid != -1 and sid in by_id and seen <= len(snaps):
            seen += 1
            sid = by_id[sid].get("parent-snapshot-id")
        if seen != len(snaps):
            problems.append(f"main's ancestry covers {seen} of {len(snaps)} snapshots")
    return problems


def run_client(a):
    rnd = random.Random(a.seed)
    ports = [int(p) for p in a.ports.split(",")]
    names = [n for n, _ in TABLE_WEIGHTS]
    weights = [w for _, w in TABLE_WEIGHTS]
    out = open(a.out, "a", buffering=1)
    attempts = 0
    seq = 0

    def record(rec):
        out.write(json.dumps(rec, separators=(",", ":")) + "\n")

    while time.time() < a.deadline and attempts < a.max_attempts:
        table = rnd.choices(names, weights)[0]
        if rnd.random() < a.read_ratio:
            replica = rnd.randrange(len(ports))
            rec = {"kind": "read", "table": table, "replica": replica, "start": time.time()}
            try:
                status, body = http_call(ports[replica], "GET", table_path(table),
                                         timeout=a.timeout)
                rec["status"] = status
                if status == 200:
                    try:
                        doc = json.loads(body)
                        problems = check_document(doc, full=True)
                    except ValueError as e:
                        doc, problems = None, [f"unparseable: {e}"]
                    rec["outcome"] = "bad" if problems else "ok"
                    if problems:
                        rec["problems"] = problems[:5]
                    if doc and not problems:
                        md = doc["metadata"]
                        rec["seq"] = md.get("last-sequence-number")
                        rec["current"] = md.get("current-snapshot-id")
                else:
                    rec["outcome"] = "error"
            except (OSError, http.client.HTTPException) as e:
                rec["outcome"], rec["detail"] = "error", type(e).__name__
            rec["end"] = time.time()
            record(rec)
            continue

        # An append: load (refs only), then commit against what was loaded.
        replica = rnd.randrange(len(ports))
        load = {"kind": "load", "table": table, "replica": replica, "start": time.time()}
        md = None
        try:
            status, body = http_call(ports[replica], "GET", table_path(table) + "?snapshots=refs",
                                     timeout=a.timeout)
            load["status"] = status
            if status == 200:
                doc = json.loads(body)
                problems = check_document(doc, full=False)
                if problems:
                    load["outcome"], load["problems"] = "bad", problems[:5]
                else:
                    md = doc["metadata"]
                    load["outcome"] = "ok"
                    load["seq"] = md.get("last-sequence-number")
                    load["current"] = md.get("current-snapshot-id")
            else:
                load["outcome"] = "error"
        except (OSError, http.client.HTTPException, ValueError) as e:
            load["outcome"], load["detail"] = "error", type(e).__name__
        load["end"] = time.time()
        record(load)
        if md is None:
            time.sleep(0.05)
            continue

        attempts += 1
        seq += 1
        hid = f"c{a.id}-{seq}"
        sid = rnd.randrange(1, 1 << 62)
        cur = md.get("current-snapshot-id")
        if cur == -1:
            cur = None
        snapshot = {"snapshot-id": sid, "sequence-number": md["last-sequence-number"] + 1,
                    "timestamp-ms": int(time.time() * 1000),
                    "manifest-list": f"{md['location']}/metadata/snap-{sid}-harness.avro",
                    "summary": {"operation": "append", "harness-id": hid}}
        if cur is not None:
            snapshot["parent-snapshot-id"] = cur
        body = {"requirements": [{"type": "assert-table-uuid", "uuid": md["table-uuid"]},
                                 {"type": "assert-ref-snapshot-id", "ref": "main",
                                  "snapshot-id": cur}],
                "updates": [{"action": "add-snapshot", "snapshot": snapshot},
                            {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch",
                             "snapshot-id": sid}]}
        # With --retry-unknown, an unknown outcome is re-sent, same body and Idempotency-Key,
        # to a random replica: the server must answer the first outcome, never run it twice.
        key = str(uuid.UUID(int=rnd.getrandbits(128), version=4)) if a.retry_unknown else None
        for attempt_try in range(a.retry_unknown + 1):
            if attempt_try:
                time.sleep(rnd.uniform(0.1, 0.6))
            rec = commit_once(a, rnd, ports, table, hid, sid, cur, body, key, attempt_try)
            record(rec)
            if rec["outcome"] != "unknown" or time.time() > a.deadline + 2 * a.timeout:
                break
    out.close()
    return 0


def commit_once(a, rnd, ports, table, hid, sid, cur, body, key, attempt_try):
    replica = rnd.randrange(len(ports))
    rec = {"kind": "commit", "hid": hid, "table": table, "replica": replica,
           "snapshot": sid, "parent": cur, "start": time.time()}
    if key:
        rec["try"], rec["key"] = attempt_try, key
    try:
        status, resp = http_call(ports[replica], "POST", table_path(table), body,
                                 timeout=a.timeout,
                                 extra_headers={"Idempotency-Key": key} if key else None)
        rec["status"] = status
        if status == 200:
            rec["outcome"] = "ok"
            # The response is the new metadata: it must hold our snapshot.
            if f'"harness-id":"{hid}"'.encode() not in resp:
                rec["response_mismatch"] = True
        elif status == 409:
            rec["outcome"] = "conflict"
        elif 400 <= status < 500:
            rec["outcome"] = "rejected"
        else:
            rec["outcome"] = "unknown"
        if status != 200:
            try:
                err = json.loads(resp).get("error", {})
                rec["detail"] = f"{err.get('type')}: {err.get('message', '')[:200]}"
            except (ValueError, AttributeError):
                rec["detail"] = resp[:200].decode(errors="replace")
    except (OSError, http.client.HTTPException) as e:
        rec["outcome"], rec["detail"] = "unknown", f"{type(e).__name__}: {e}"[:200]
    rec["end"] = time.time()
    return rec


# ------------------------------------------------------------------------------------ replicas

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Replica:
    def __init__(self, idx, binary, port, workdir, common_args):
        self.idx, self.binary, self.port = idx, binary, port
        self.data_dir = os.path.join(workdir, f"replica{idx}")
        os.makedirs(self.data_dir, exist_ok=True)
        self.log_path = os.path.join(workdir, f"replica{idx}.log")
        self.common_args = common_args
        self.proc = None
        self.stopped = False  # SIGSTOPped
        self.lock = threading.Lock()

    def start(self, timeout=30.0):
        deadline = time.time() + timeout
        while True:
            logf = open(self.log_path, "ab")
            offset = logf.tell()
            cmd = [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port),
                   "--data-dir", self.data_dir] + self.common_args
            self.proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
            logf.close()
            while time.time() < deadline:
                with open(self.log_path, "rb") as f:
                    f.seek(offset)
                    text = f.read().decode(errors="replace")
                if "cairn listening on" in text:
                    return
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError(f"replica {self.idx} did not become ready")
            if time.time() >= deadline:
                raise RuntimeError(f"replica {self.idx} failed to start: {text[-500:]}")
            time.sleep(0.3)  # e.g. the port is not free again yet: retry

    def signal(self, sig):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, sig)

    def kill9(self):
        self.signal(signal.SIGKILL)
        if self.proc:
            self.proc.wait()

    def stop(self, timeout=15.0):
        """Clean stop: SIGCONT (if stopped), SIGTERM, wait; SIGKILL only as a last resort."""
        if not self.proc or self.proc.poll() is not None:
            return True
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            log(f"replica {self.idx} still running {timeout:.0f} s after SIGTERM: SIGKILL")
            if shutil.which("gdb"):  # evidence: where its threads are
                with open(os.path.join(os.path.dirname(self.log_path),
                                       f"replica{self.idx}.stuck-stacks.txt"), "w") as f:
                    subprocess.run(["gdb", "-p", str(self.proc.pid), "-batch", "-ex",
                                    "thread apply all bt"], stdout=f, stderr=subprocess.STDOUT,
                                   timeout=60)
            self.proc.kill()
            self.proc.wait()
            return False


# --------------------------------------------------------------------------------------- faults

class Faults(threading.Thread):
    def __init__(self, replicas, kinds, interval, t_start, t_stop, out_path, pg_url, rnd):
        super().__init__(daemon=True)
        self.replicas, self.kinds, self.interval = replicas, kinds, interval
        self.t_start, self.t_stop = t_start, t_stop
        self.out = open(out_path, "a", buffering=1)
        self.pg_url, self.rnd = pg_url, rnd
        self.halt = threading.Event()
        self.error = None
        self.count = {k: 0 for k in kinds}

    def record(self, rec):
        self.out.write(json.dumps(rec) + "\n")

    def run(self):
        try:
            self._run()
        except Exception as e:  # noqa: BLE001 - reported by the harness
            self.error = e
            log(f"fault injector failed: {e!r}")

    def _run(self):
        if self.halt.wait(max(0.0, self.t_start - time.time())):
            return
        i = 0
        while not self.halt.is_set() and time.time() < self.t_stop:
            kind = self.kinds[i % len(self.kinds)]
            i += 1
            r = self.rnd.choice(self.replicas)
            rec = {"fault": kind, "start": time.time()}
            if kind == "kill":
                rec["replica"] = r.idx
                with r.lock:
                    r.kill9()
                    self.halt.wait(self.rnd.uniform(0.3, 2.0))
                    r.start()
            elif kind == "stop":
                rec["replica"] = r.idx
                with r.lock:
                    r.signal(signal.SIGSTOP)
                    r.stopped = True
                    rec["seconds"] = round(self.rnd.uniform(2.0, 7.0), 2)
                    self.halt.wait(rec["seconds"])
                    r.signal(signal.SIGCONT)
                    r.stopped = False
            elif kind == "pgterm":
                res = subprocess.run(
                    ["psql", self.pg_url, "-Atc",
                     "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                     "WHERE usename = 'cairn' AND pid <> pg_backend_pid() "
                     "AND backend_type = 'client backend'"],
                    capture_output=True, text=True, timeout=30)
                rec["terminated"] = res.stdout.strip() or res.stderr.strip()[:200]
            rec["end"] = time.time()
            self.count[kind] += 1
            self.record(rec)
            log(f"fault {kind} {rec.get('replica', '')} "
                f"{rec.get('seconds', rec.get('terminated', ''))}".rstrip())
            self.halt.wait(self.interval * self.rnd.uniform(0.6, 1.4))


# ------------------------------------------------------------------------------------- the run

def start_postgres(pgdir):
    script = os.path.join(REPO, "tests", "support", "postgres.sh")
    return subprocess.run([script, "start", pgdir], check=True, capture_output=True,
                          text=True).stdout.strip()


def stop_postgres(pgdir):
    script = os.path.join(REPO, "tests", "support", "postgres.sh")
    subprocess.run([script, "stop", pgdir], capture_output=True)


def setup_tables(port):
    status, body = http_call(port, "POST", "/v1/namespaces", {"namespace": [NAMESPACE]},
                             timeout=30)
    if status not in (200, 409):
        raise RuntimeError(f"create namespace: HTTP {status} {body[:300]!r}")
    for name, _ in TABLE_WEIGHTS:
        req = {"name": name, "schema": SCHEMA,
               "properties": {"write.metadata.previous-versions-max": "100000",
                              "format-version": "2"}}
        status, body = http_call(port, "POST", f"/v1/namespaces/{NAMESPACE}/tables", req,
                                 timeout=30)
        if status != 200:
            raise RuntimeError(f"create table {name}: HTTP {status} {body[:300]!r}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "client":
        p = argparse.ArgumentParser()
        p.add_argument("client")
        for flag, typ in [("--id", int), ("--ports", str), ("--deadline", float),
                          ("--max-attempts", int), ("--out", str), ("--timeout", float),
                          ("--seed", int), ("--read-ratio", float), ("--retry-unknown", int)]:
            p.add_argument(flag, type=typ, required=True)
        return run_client(p.parse_args())

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=["postgres", "sqlite"], default="postgres")
    p.add_argument("--cairn", default=os.environ.get("CAIRN_BIN", ""),
                   help="cairn binary (default: $CAIRN_BIN, else build/cairn)")
    p.add_argument("--pg-url", default="", help="use this PostgreSQL instead of starting one "
                   "(each run uses its own catalog name)")
    p.add_argument("--mutant", default="", choices=["", "cas-without-predicate",
                                                    "false-conflict"])
    p.add_argument("--duration", type=float, default=75.0, help="seconds of client traffic")
    p.add_argument("--max-attempts", type=int, default=100000, help="commit attempts, total")
    p.add_argument("--replicas", type=int, default=3)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--timeout", type=float, default=5.0, help="client request timeout (s)")
    p.add_argument("--read-ratio", type=float, default=0.1)
    p.add_argument("--retry-unknown", type=int, default=0,
                   help="send an Idempotency-Key with every commit and re-send an unknown "
                   "outcome up to this many times (default 0: no key, no retry)")
    p.add_argument("--fault-interval", type=float, default=4.0,
                   help="mean seconds between faults (0: no faults)")
    p.add_argument("--faults", default="",
                   help="comma-separated fault kinds, in rotation (default: kill,stop and, "
                   "on PostgreSQL, pgterm)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--workdir", default="", help="keep everything here (default: a temp dir, "
                   "removed unless --keep or a violation)")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--report-json", default="")
    a = p.parse_args()

    binary = a.cairn or os.path.join(REPO, "build", "cairn")
    if not os.access(binary, os.X_OK):
        print(f"exactly_once: no cairn binary at {binary} (build it, or set CAIRN_BIN)",
              file=sys.stderr)
        return 2
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    workdir = a.workdir or tempfile.mkdtemp(prefix="cairn-harness-")
    os.makedirs(workdir, exist_ok=True)
    label = (f"{a.backend}{' mutant=' + a.mutant if a.mutant else ''}"
             f"{f' retry-unknown={a.retry_unknown}' if a.retry_unknown else ''}")
    log(f"run {label}: seed {seed}, workdir {workdir}")

    replicas, clients = [], []
    pgdir = None
    faults = None
    state = {"cleaned": False}

    def cleanup():
        if state["cleaned"]:
            return
        state["cleaned"] = True
        if faults:
            faults.halt.set()
        for c in clients:
            if c.poll() is None:
                c.kill()
                c.wait()
        for r in replicas:
            r.stop()
        if pgdir:
            stop_postgres(pgdir)

    def on_signal(signum, _frame):
        cleanup()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    rc = 1
    try:
        pg_url = a.pg_url
        catalog_name = f"harness_{os.getpid()}_{rnd.randrange(1 << 20)}"
        if a.backend == "postgres":
            if not pg_url:
                pgdir = os.path.join(workdir, "pg")
                pg_url = start_postgres(pgdir)
            db = pg_url
        else:
            db = "sqlite:" + os.path.join(workdir, "cairn.db")
        warehouse = os.path.join(workdir, "warehouse")
        os.makedirs(warehouse, exist_ok=True)
        common = ["--db", db, "--catalog-name", catalog_name, "--warehouse", warehouse]
        if a.mutant:
            common += ["--test-mutant", a.mutant]
        used = set()
        for i in range(a.replicas):
            port = free_port()
            while port in used:
                port = free_port()
            used.add(port)
            replicas.append(Replica(i, binary, port, workdir, common))
        for r in replicas:
            r.start()
        with open(os.path.join(workdir, "pids"), "w") as f:
            f.write("\n".join(str(r.proc.pid) for r in replicas) + "\n")
        setup_tables(replicas[0].port)
        meta = {"backend": a.backend, "db": db, "catalog": catalog_name,
                "namespace": NAMESPACE, "tables": [n for n, _ in TABLE_WEIGHTS],
                "mutant": a.mutant, "seed": seed, "replicas": a.replicas,
                "clients": a.clients, "retry_unknown": a.retry_unknown}

        t0 = time.time()
        deadline = t0 + a.duration
        per_client = max(1, a.max_attempts // a.clients)
        for i in range(a.clients):
            out = os.path.join(workdir, f"client{i}.jsonl")
            clients.append(subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "client", "--id", str(i),
                 "--ports", ",".join(str(r.port) for r in replicas), "--deadline", str(deadline),
                 "--max-attempts", str(per_client), "--out", out, "--timeout", str(a.timeout),
                 "--seed", str(rnd.randrange(1 << 30)), "--read-ratio", str(a.read_ratio),
                 "--retry-unknown", str(a.retry_unknown)]))
        kinds = ["kill", "stop"] + (["pgterm"] if a.backend == "postgres" else [])
        if a.faults:
            kinds = a.faults.split(",")
            if any(k not in ("kill", "stop", "pgterm") for k in kinds) or (
                    "pgterm" in kinds and a.backend != "postgres"):
                raise SystemExit(f"--faults: kill, stop, pgterm (PostgreSQL only): {a.faults}")
        if a.fault_interval > 0:
            # No fault starts in the last 8 s: every replica is up again before traffic ends.
            faults = Faults(replicas, kinds, a.fault_interval, t0 + 3.0, deadline - 8.0,
                            os.path.join(workdir, "faults.jsonl"), pg_url, rnd)
            faults.start()
        for c in clients:
            try:
                c.wait(timeout=max(1.0, deadline - time.time()) + a.timeout * 3 + 30)
            except subprocess.TimeoutExpired:
                log("a client did not finish: killing it")
                c.kill()
                c.wait()
        elapsed = time.time() - t0
        if faults:
            faults.halt.set()
            faults.join(60)
        clean = all(r.stop() for r in replicas)
        meta["elapsed"] = elapsed
        meta["clean_stop"] = clean
        meta["faults"] = dict(faults.count) if faults else {}
        meta["client_exit_codes"] = [c.returncode for c in clients]
        with open(os.path.join(workdir, "run.json"), "w") as f:
            json.dump(meta, f, indent=1)

        report = checker.check(workdir)
        print(checker.format_report(report, label))
        expectation_held = checker.expectation_held(report, a.mutant)
        if any(code != 0 for code in meta["client_exit_codes"]):
            print(f"  client processes failed: exit codes {meta['client_exit_codes']}")
            expectation_held = False
        if faults and faults.error:
            print(f"  fault injector failed: {faults.error!r}")
            expectation_held = False
        if a.report_json:
            with open(a.report_json, "w") as f:
                json.dump(report, f, indent=1, default=str)
        verdict = "PASS" if expectation_held else "FAIL"
        expect = ("no violation" if not a.mutant else
                  "the checker flags the mutant")
        print(f"  expectation ({expect}): {verdict}")
        rc = 0 if expectation_held else 1
        return rc
    finally:
        cleanup()
        keep = a.keep or a.workdir or rc != 0
        if keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
