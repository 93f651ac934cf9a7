#!/usr/bin/env python3
"""The exactly-once checker: after a harness run (replicas stopped), compare what the clients
were told with what the tables hold.

    checker.py WORKDIR        (a harness work dir: run.json, client*.jsonl, faults.jsonl)

For every table it reads the pointer from the metastore, walks the metadata chain (the current
file's metadata-log, which the harness tables keep whole) and reports:

  lost            an acknowledged (200) commit whose harness-id is not in the final snapshots
  duplicated      a harness-id present more than once
  false_409       a 409 commit whose harness-id is present (false_4xx: another 4xx)
  chain_breaks    a snapshot whose parent is not the previous snapshot, sequence numbers not
                  increasing, main's ancestry not covering every snapshot, a metadata file
                  whose history is not a prefix of the current one, file versions not 0..n
  dangling        the DB pointer or a metadata-log entry naming a missing file
  rt_order        A acknowledged before B started, yet B precedes A in the chain
  stale_reads     a load that started after A was acknowledged and did not see A
  phantom_reads   a load that saw a current snapshot that is not in the final chain
  bad_reads       a 200 loadTable whose document is incomplete or inconsistent
  orphans         metadata files not reachable from the chain, attributed to the attempt that
                  wrote them; unknown outcomes may leave some, ok/409 ones must not
  pending_keys    Idempotency-Key records still 'pending' once every replica has stopped: a
                  retry with such a key stalls until the server's stale takeover (liveness,
                  reported, not failing)

Tries of one commit (--retry-unknown: same harness-id and key) form one operation: its outcome
is the last try's, it may have applied from its first try's start.
"""
import bisect
import glob
import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter, defaultdict

FAILING = ["lost", "duplicated", "false_409", "false_4xx", "chain_breaks", "dangling",
           "rt_order", "stale_reads", "phantom_reads", "bad_reads"]
MAX_EXAMPLES = 8


def local_path(location):
    if location.startswith("file://"):
        return location[7:]
    if location.startswith("file:"):
        return location[5:]
    return location


def read_pointers(meta):
    """{table: (metadata_location, previous_metadata_location, version)} from the metastore."""
    if meta["backend"] == "sqlite":
        path = meta["db"][len("sqlite:"):]
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = conn.execute(
                "SELECT table_name, metadata_location, coalesce(previous_metadata_location, ''), "
                "cairn_version FROM iceberg_tables WHERE catalog_name = ? AND "
                "table_namespace = ?", (meta["catalog"], meta["namespace"])).fetchall()
        finally:
            conn.close()
    else:
        sql = ("SELECT table_name, metadata_location, coalesce(previous_metadata_location, ''), "
               "cairn_version FROM iceberg_tables WHERE catalog_name = '{}' AND "
               "table_namespace = '{}'").format(meta["catalog"], meta["namespace"])
        out = subprocess.run(["psql", meta["db"], "-AtF", "\t", "-c", sql], check=True,
                             capture_output=True, text=True).stdout
        rows = [line.split("\t") for line in out.splitlines() if line.strip()]
    return {r[0]: (r[1], r[2], int(r[3])) for r in rows}


def read_idempotency_keys(meta):
    """[(key, state, status)] of the run's Idempotency-Key records, [] when there are none."""
    sql = ("SELECT idempotency_key, state, coalesce(status, 0) FROM cairn_idempotency_keys "
           "WHERE catalog_name = '{}'").format(meta["catalog"])
    try:
        if meta["backend"] == "sqlite":
            conn = sqlite3.connect("file:{}?mode=ro".format(meta["db"][len("sqlite:"):]),
                                   uri=True)
            try:
                return [tuple(r) for r in conn.execute(sql).fetchall()]
            finally:
                conn.close()
        out = subprocess.run(["psql", meta["db"], "-AtF", "\t", "-c", sql], check=True,
                             capture_output=True, text=True).stdout
        return [tuple(line.split("\t")) for line in out.splitlines() if line.strip()]
    except (sqlite3.Error, subprocess.CalledProcessError, OSError):
        return []  # no such table (an older server), or the database is gone


def load_jsonl(pattern):
    out = []
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass  # a line cut short by a killed client
    return out


def active_faults(faults, start, end, slack=1.0):
    return [f"{f['fault']}{'@r' + str(f['replica']) if 'replica' in f else ''}"
            f"[{f['start']:.1f}..{f['end']:.1f}]"
            for f in faults if f["start"] - slack <= end and f["end"] + slack >= start]


def version_of(location):
    name = location.rsplit("/", 1)[-1]
    digits = ""
    for ch in name:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else None


def newest_harness_id(doc):
    snaps = doc.get("snapshots") or []
    if not snaps:
        return None
    s = max(snaps, key=lambda s: s.get("sequence-number", 0))
    return (s.get("summary") or {}).get("harness-id")


def check_table(name, pointer, attempts_by_hid, report, examples, faults):
    """Walks one table. Returns {harness-id: sequence number} of its final snapshots."""
    t = {"table": name}
    report["tables"].append(t)
    if pointer is None:
        report["dangling"] += 1
        examples["dangling"].append(f"{name}: no row in the metastore")
        return {}, set(), None
    location, previous, version = pointer
    t["db_version"] = version
    current = location
    if not os.path.exists(local_path(location)):
        report["dangling"] += 1
        examples["dangling"].append(f"{name}: the DB pointer names a missing file {location}")
        if previous and os.path.exists(local_path(previous)):
            current = previous  # walk what is left
        else:
            return {}, set(), os.path.dirname(local_path(location))
    with open(local_path(current)) as f:
        doc = json.load(f)
    log = [e["metadata-file"] for e in doc.get("metadata-log", [])]
    chain = log + [current]
    t["chain_files"] = len(chain)
    for e in log:
        if not os.path.exists(local_path(e)):
            report["dangling"] += 1
            examples["dangling"].append(f"{name}: metadata-log names a missing file {e}")
    if current == location and previous and log and log[-1] != previous:
        report["chain_breaks"] += 1
        examples["chain_breaks"].append(f"{name}: DB previous_metadata_location {previous} is "
                                        f"not the last metadata-log entry {log[-1]}")
    versions = [version_of(x) for x in chain]
    if versions != list(range(len(chain))):
        bad = next(i for i, v in enumerate(versions) if v != i)
        report["chain_breaks"] += 1
        examples["chain_breaks"].append(f"{name}: file versions not 0..n: position {bad} is "
                                        f"{chain[bad]}")

    snaps = doc.get("snapshots") or []
    t["snapshots"] = len(snaps)
    ids = [s["snapshot-id"] for s in snaps]
    for i, s in enumerate(snaps):
        if i == 0:
            if s.get("parent-snapshot-id") not in (None, -1):
                report["chain_breaks"] += 1
                examples["chain_breaks"].append(f"{name}: first snapshot {s['snapshot-id']} "
                                                f"has parent {s.get('parent-snapshot-id')}")
            continue
        prev = snaps[i - 1]
        if s.get("parent-snapshot-id") != prev["snapshot-id"]:
            report["chain_breaks"] += 1
            examples["chain_breaks"].append(
                f"{name}: snapshot #{i} {s['snapshot-id']} "
                f"({(s.get('summary') or {}).get('harness-id')}) has parent "
                f"{s.get('parent-snapshot-id')}, the previous snapshot is {prev['snapshot-id']}")
        if s.get("sequence-number", 0) <= prev.get("sequence-number", 0):
            report["chain_breaks"] += 1
            examples["chain_breaks"].append(
                f"{name}: sequence number {s.get('sequence-number')} after "
                f"{prev.get('sequence-number')} at snapshot #{i}")
    by_id = {s["snapshot-id"]: s for s in snaps}
    main = (doc.get("refs") or {}).get("main", {}).get("snapshot-id")
    cur = doc.get("current-snapshot-id")
    if snaps and (main != ids[-1] or cur != ids[-1]):
        report["chain_breaks"] += 1
        examples["chain_breaks"].append(f"{name}: main={main}, current={cur}, but the newest "
                                        f"snapshot is {ids[-1]}")
    seen, sid = 0, main
    while sid is not None and sid != -1 and sid in by_id and seen <= len(snaps):
        seen += 1
        sid = by_id[sid].get("parent-snapshot-id")
    if seen != len(snaps):
        report["chain_breaks"] += 1
        examples["chain_breaks"].append(f"{name}: main's ancestry covers {seen} of "
                                        f"{len(snaps)} snapshots")
    if len(log) != len(snaps):
        report["chain_breaks"] += 1
        examples["chain_breaks"].append(f"{name}: {len(log)} previous metadata files for "
                                        f"{len(snaps)} snapshots (one commit, one of each)")
    # Sample the history: every earlier file must be a prefix of the current one.
    step = max(1, len(log) // 25)
    for i in list(range(0, len(log), step)) + ([len(log) - 1] if log else []):
        path = local_path(log[i])
        if not os.path.exists(path):
            continue
        with open(path) as f:
            old = json.load(f)
        old_ids = [s["snapshot-id"] for s in old.get("snapshots") or []]
        old_log = [e["metadata-file"] for e in old.get("metadata-log", [])]
        if old_ids != ids[:len(old_ids)] or old_log != log[:len(old_log)] or len(old_log) != i:
            report["chain_breaks"] += 1
            examples["chain_breaks"].append(f"{name}: history of {log[i]} (position {i}) is not "
                                            f"a prefix of the current file")

    present = {}
    counts = Counter()
    for s in snaps:
        hid = (s.get("summary") or {}).get("harness-id")
        if hid is None:
            continue
        counts[hid] += 1
        present[hid] = s.get("sequence-number")
    for hid, c in counts.items():
        if c > 1:
            report["duplicated"] += 1
            a = attempts_by_hid.get(hid, {})
            examples["duplicated"].append(f"{hid} present {c} times in {name} (outcome "
                                          f"{a.get('outcome')})")
    return present, set(chain), os.path.dirname(local_path(location))


def check(workdir):
    with open(os.path.join(workdir, "run.json")) as f:
        meta = json.load(f)
    records = load_jsonl(os.path.join(workdir, "client*.jsonl"))
    faults = load_jsonl(os.path.join(workdir, "faults.jsonl"))
    # One logical commit per harness-id; with --retry-unknown it may have several tries (the
    # same body and Idempotency-Key, re-sent after an unknown outcome). Its outcome is its last
    # try's; it may have applied from its first try's start.
    tries_by_hid = defaultdict(list)
    for r in records:
        if r["kind"] == "commit":
            tries_by_hid[r["hid"]].append(r)
    commits = []
    for hid, tries in tries_by_hid.items():
        tries.sort(key=lambda r: (r.get("try", 0), r["start"]))
        op = dict(tries[-1])
        op["start"], op["end"] = tries[0]["start"], tries[-1]["end"]
        op["tries"] = len(tries)
        op["had_unknown"] = any(r["outcome"] == "unknown" for r in tries)
        if len(tries) > 1:
            op["try_outcomes"] = [f"{r['outcome']}/{r.get('status')}@r{r['replica']}"
                                  for r in tries]
        op["response_mismatch"] = any(r.get("response_mismatch") for r in tries)
        commits.append(op)
    loads = [r for r in records if r["kind"] in ("load", "read")]
    attempts_by_hid = {r["hid"]: r for r in commits}
    outcomes = Counter(r["outcome"] for r in commits)
    report = {"run": meta, "attempts": len(commits), "tries": sum(c["tries"] for c in commits),
              "retried": sum(1 for c in commits if c["tries"] > 1),
              "ok": outcomes["ok"],
              "conflict": outcomes["conflict"], "unknown": outcomes["unknown"],
              "rejected": outcomes["rejected"],
              "reads": sum(1 for r in loads if r["kind"] == "read"),
              "loads_failed": sum(1 for r in loads if r.get("outcome") == "error"),
              "response_mismatch": sum(1 for r in commits if r.get("response_mismatch")),
              "faults": Counter(f["fault"] for f in faults), "tables": []}
    elapsed = meta.get("elapsed") or 1.0
    report["commits_per_s"] = round(outcomes["ok"] / elapsed, 1)
    for k in FAILING:
        report[k] = 0
    examples = defaultdict(list)

    # The metastore's rows are saved beside the run so that it can be re-checked offline.
    saved = os.path.join(workdir, "pointers.json")
    try:
        pointers = read_pointers(meta)
        with open(saved, "w") as f:
            json.dump(pointers, f, indent=1)
    except (subprocess.CalledProcessError, sqlite3.Error, OSError):
        if not os.path.exists(saved):
            raise
        with open(saved) as f:
            pointers = {k: tuple(v) for k, v in json.load(f).items()}
    # With every replica stopped, a key still 'pending' was left behind by a request that
    # ended: retries with it stall until the server's stale takeover. Liveness, not safety.
    keys_saved = os.path.join(workdir, "idempotency_keys.json")
    keys = read_idempotency_keys(meta)
    if keys:
        with open(keys_saved, "w") as f:
            json.dump(keys, f)
    elif os.path.exists(keys_saved):
        with open(keys_saved) as f:
            keys = [tuple(k) for k in json.load(f)]
    key_states = Counter(k[1] for k in keys)
    report["idempotency_keys"] = dict(key_states)
    pending = {k[0] for k in keys if k[1] == "pending"}
    stuck = [c for c in commits if c.get("key") in pending]
    report["pending_keys"] = len(pending)
    for c in stuck[:MAX_EXAMPLES]:
        examples["pending_keys"].append(f"key {c['key']} of {c['hid']} tries "
                                        f"{c.get('try_outcomes') or c['outcome']}")

    present_by_table, chain_files, dirs = {}, set(), set()
    for name in meta["tables"]:
        present, files, mdir = check_table(name, pointers.get(name), attempts_by_hid, report,
                                           examples, faults)
        present_by_table[name] = present
        chain_files |= {local_path(x) for x in files}
        if mdir:
            dirs.add(mdir)

    def describe(r):
        return (f"{r.get('hid', r['kind'])} table={r['table']} replica={r['replica']} "
                f"outcome={r.get('outcome')} status={r.get('status')} "
                f"t=[{r['start']:.3f}..{r['end']:.3f}] detail={r.get('detail', '')!r} "
                f"{'tries=' + str(r['try_outcomes']) + ' ' if r.get('try_outcomes') else ''}"
                f"faults={active_faults(faults, r['start'], r['end'])}")

    unknown_present = 0
    for r in commits:
        present = r["hid"] in present_by_table.get(r["table"], {})
        r["present"] = present
        if r["outcome"] == "ok" and not present:
            report["lost"] += 1
            examples["lost"].append(describe(r))
        elif r["outcome"] == "conflict" and present:
            report["false_409"] += 1
            examples["false_409"].append(describe(r))
        elif r["outcome"] == "rejected" and present:
            report["false_4xx"] += 1
            examples["false_4xx"].append(describe(r))
        elif r["outcome"] == "unknown" and present:
            unknown_present += 1
    report["unknown_present"] = unknown_present

    # Real-time order: if A was acknowledged before B started, A precedes B in the chain.
    # Reads: a load that started after A was acknowledged sees A; what it sees is never undone.
    for name in meta["tables"]:
        present = present_by_table[name]
        acked = sorted((r["end"], present[r["hid"]], r) for r in commits
                       if r["table"] == name and r["outcome"] == "ok" and r["hid"] in present)
        ends = [e for e, _, _ in acked]
        best = []  # running max of positions over acked[:i+1]
        for _, pos, r in acked:
            best.append(max(best[-1], (pos, r["hid"])) if best else (pos, r["hid"]))

        def latest_acked_before(t):
            i = bisect.bisect_left(ends, t)
            return best[i - 1] if i > 0 else None

        for r in commits:
            if r["table"] != name or r["hid"] not in present:
                continue
            prior = latest_acked_before(r["start"])
            if prior and prior[0] > present[r["hid"]]:
                report["rt_order"] += 1
                examples["rt_order"].append(f"{describe(r)} placed at sequence "
                                            f"{present[r['hid']]} before {prior[1]} (seq "
                                            f"{prior[0]}) acknowledged before it started")
        for r in loads:
            if r["table"] != name or r.get("outcome") != "ok":
                continue
            prior = latest_acked_before(r["start"])
            if prior and r.get("seq") is not None and r["seq"] < prior[0]:
                report["stale_reads"] += 1
                examples["stale_reads"].append(f"{describe(r)} saw sequence {r['seq']} but "
                                               f"{prior[1]} (seq {prior[0]}) was acknowledged "
                                               f"before it started")
    snapshot_ids = {}
    for r in commits:
        if r.get("present"):
            snapshot_ids[(r["table"], r["snapshot"])] = r["hid"]
    for r in loads:
        if r.get("outcome") != "ok" or r.get("current") in (None, -1):
            continue
        if (r["table"], r["current"]) not in snapshot_ids:
            report["phantom_reads"] += 1
            examples["phantom_reads"].append(f"{describe(r)} saw current snapshot "
                                             f"{r['current']}, not in the final chain")
    for r in loads:
        if r.get("outcome") == "bad":
            report["bad_reads"] += 1
            examples["bad_reads"].append(f"{describe(r)} problems={r.get('problems')}")

    # Orphans: files in the metadata folders that the chains do not reach.
    orphans = Counter()
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for fn in os.listdir(d):
            path = os.path.join(d, fn)
            if path in chain_files:
                continue
            if ".tmp-" in fn:
                orphans["temp"] += 1
                continue
            if not fn.endswith(".metadata.json"):
                continue
            try:
                with open(path) as f:
                    hid = newest_harness_id(json.load(f))
            except (OSError, ValueError):
                orphans["unreadable"] += 1
                continue
            a = attempts_by_hid.get(hid)
            kind = ("unknown" if a.get("had_unknown") else a["outcome"]) if a else "unattributed"
            orphans[kind] += 1
            if a and kind != "unknown" and len(examples["orphans"]) < MAX_EXAMPLES:
                examples["orphans"].append(f"{fn}: {describe(a)}")
    report["orphans"] = sum(v for k, v in orphans.items() if k != "temp")
    report["orphans_by_outcome"] = dict(orphans)
    report["examples"] = {k: v[:MAX_EXAMPLES] for k, v in examples.items()}
    report["example_counts"] = {k: len(v) for k, v in examples.items()}
    return report


def violations(report):
    return {k: report[k] for k in FAILING if report[k] > 0}


def expectation_held(report, mutant):
    if mutant == "cas-without-predicate":
        return report["lost"] > 0
    if mutant == "false-conflict":
        return report["false_409"] > 0 or report["dangling"] > 0
    return not violations(report) and report["ok"] > 0


def format_report(report, label):
    run = report["run"]
    lines = [f"=== exactly-once report: {label} ({run['replicas']} replicas, {run['clients']} "
             f"clients, {run.get('elapsed', 0):.1f} s, seed {run['seed']}) ==="]
    lines.append(f"  attempts {report['attempts']}: ok {report['ok']}, conflict "
                 f"{report['conflict']}, unknown {report['unknown']} (of which present "
                 f"{report['unknown_present']}), other 4xx {report['rejected']}; "
                 f"{report['commits_per_s']} commits/s"
                 + (f"; {report['retried']} retried ({report['tries']} tries)"
                    if report["retried"] else ""))
    lines.append(f"  reads {report['reads']}, failed loads/reads {report['loads_failed']}; "
                 f"faults {dict(report['faults'])}; clean stop {run.get('clean_stop')}")
    tables = ", ".join(f"{t['table']}={t.get('snapshots', '?')}" for t in report["tables"])
    lines.append(f"  snapshots per table: {tables}")
    lines.append("  violations: " + ", ".join(f"{k} {report[k]}" for k in FAILING))
    lines.append(f"  orphan metadata files {report['orphans']} by outcome "
                 f"{report['orphans_by_outcome']}; commit responses missing their snapshot "
                 f"{report['response_mismatch']}")
    if report.get("idempotency_keys"):
        lines.append(f"  idempotency keys after the run {report['idempotency_keys']}: "
                     f"{report['pending_keys']} left pending (retries with them stall)")
    for k, ex in report["examples"].items():
        lines.append(f"  {k} ({report['example_counts'][k]} noted), e.g.:")
        for e in ex:
            lines.append(f"    - {e}")
    return "\n".join(lines)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    report = check(sys.argv[1])
    with open(os.path.join(sys.argv[1], "run.json")) as f:
        mutant = json.load(f).get("mutant", "")
    print(format_report(report, "re-check " + sys.argv[1]))
    return 0 if expectation_held(report, mutant) else 1


if __name__ == "__main__":
    sys.exit(main())
