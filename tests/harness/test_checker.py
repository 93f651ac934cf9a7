#!/usr/bin/env python3
"""Self-test of checker.py on hand-made histories: every violation class must be detected, and
a clean history must pass. Standard library only: `python3 tests/harness/test_checker.py`."""
import json
import os
import sqlite3
import sys
import tempfile
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker  # noqa: E402


class History:
    """A one-table SQLite catalog written by hand: files, pointer, client records."""

    def __init__(self, root):
        self.root = root
        self.mdir = os.path.join(root, "warehouse", "harness", "t", "metadata")
        os.makedirs(self.mdir)
        self.files = []      # chain of metadata locations
        self.snapshots = []
        self.records = []
        self.faults = []
        self.write_file()    # v0: the created table

    def location(self, version):
        return "file://" + os.path.join(self.mdir, f"{version:05d}-{uuid.uuid4()}.metadata.json")

    def doc(self, snapshots, log):
        cur = snapshots[-1]["snapshot-id"] if snapshots else None
        doc = {"format-version": 2, "table-uuid": "u", "location": "file:///x",
               "last-sequence-number": len(snapshots), "snapshots": snapshots,
               "current-snapshot-id": cur,
               "metadata-log": [{"metadata-file": f, "timestamp-ms": 0} for f in log],
               "refs": {"main": {"snapshot-id": cur, "type": "branch"}} if cur else {}}
        return doc

    def write_file(self, snapshots=None, log=None, chain=True):
        snapshots = self.snapshots if snapshots is None else snapshots
        log = self.files if log is None else log
        loc = self.location(len(log))
        with open(loc[7:], "w") as f:
            json.dump(self.doc(snapshots, log), f)
        if chain:
            self.files = log + [loc]
        return loc

    def commit(self, hid, start, end, outcome="ok", apply=True, parent=None):
        sid = 1000 + len(self.records)
        if apply:
            prev = self.snapshots[-1]["snapshot-id"] if self.snapshots else None
            snap = {"snapshot-id": sid, "sequence-number": len(self.snapshots) + 1,
                    "summary": {"operation": "append", "harness-id": hid}}
            p = parent if parent is not None else prev
            if p is not None:
                snap["parent-snapshot-id"] = p
            self.snapshots = self.snapshots + [snap]
            self.write_file()
        self.records.append({"kind": "commit", "hid": hid, "table": "t", "replica": 0,
                             "snapshot": sid, "outcome": outcome, "start": start, "end": end})
        return sid

    def finish(self, pointer=None, previous=None):
        db = os.path.join(self.root, "cairn.db")
        conn = sqlite3.connect(db)
        conn.execute("CREATE TABLE iceberg_tables (catalog_name TEXT, table_namespace TEXT, "
                     "table_name TEXT, metadata_location TEXT, previous_metadata_location TEXT, "
                     "iceberg_type TEXT, cairn_version INTEGER)")
        pointer = pointer or self.files[-1]
        previous = previous if previous is not None else (
            self.files[-2] if len(self.files) > 1 else None)
        conn.execute("INSERT INTO iceberg_tables VALUES ('c', 'harness', 't', ?, ?, 'TABLE', ?)",
                     (pointer, previous, len(self.files) - 1))
        conn.commit()
        conn.close()
        with open(os.path.join(self.root, "run.json"), "w") as f:
            json.dump({"backend": "sqlite", "db": "sqlite:" + db, "catalog": "c",
                       "namespace": "harness", "tables": ["t"], "mutant": "", "seed": 0,
                       "replicas": 1, "clients": 1, "elapsed": 1.0}, f)
        with open(os.path.join(self.root, "client0.jsonl"), "w") as f:
            for r in self.records:
                f.write(json.dumps(r) + "\n")
        with open(os.path.join(self.root, "faults.jsonl"), "w") as f:
            for r in self.faults:
                f.write(json.dumps(r) + "\n")
        return checker.check(self.root)


class CheckerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.h = History(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def assertOnly(self, report, **expected):
        got = {k: report[k] for k in checker.FAILING if report[k]}
        self.assertEqual(got, expected, checker.format_report(report, "test"))

    def test_clean_history_passes(self):
        self.h.commit("a", 1, 2)
        self.h.commit("b", 3, 4)
        self.h.commit("c", 3.5, 9, outcome="unknown")
        self.h.commit("d", 5, 6, outcome="conflict", apply=False)
        r = self.h.finish()
        self.assertOnly(r)
        self.assertTrue(checker.expectation_held(r, ""))
        self.assertEqual((r["ok"], r["conflict"], r["unknown"], r["unknown_present"]),
                         (2, 1, 1, 1))

    def test_lost(self):
        self.h.commit("a", 1, 2)
        self.h.commit("b", 3, 4, apply=False)
        r = self.h.finish()
        self.assertOnly(r, lost=1)
        self.assertTrue(checker.expectation_held(r, "cas-without-predicate"))
        self.assertFalse(checker.expectation_held(r, ""))

    def test_duplicated(self):
        self.h.commit("a", 1, 2)
        self.h.commit("a", 3, 4)
        self.assertOnly(self.h.finish(), duplicated=1)

    def test_false_409(self):
        self.h.commit("a", 1, 2, outcome="conflict")
        r = self.h.finish()
        self.assertOnly(r, false_409=1)
        self.assertTrue(checker.expectation_held(r, "false-conflict"))

    def test_real_time_order(self):
        self.h.commit("b", 5, 6)          # started after a was acknowledged, yet first
        self.h.commit("a", 1, 2)
        self.assertOnly(self.h.finish(), rt_order=1)

    def test_chain_break_parent(self):
        self.h.commit("a", 1, 2)
        self.h.commit("b", 3, 4, parent=77)
        r = self.h.finish()
        self.assertGreater(r["chain_breaks"], 0)

    def test_dangling_pointer(self):
        self.h.commit("a", 1, 2)
        self.h.commit("b", 3, 4)
        os.unlink(self.h.files[-1][7:])
        r = self.h.finish()
        self.assertEqual(r["dangling"], 1)
        self.assertTrue(checker.expectation_held(r, "false-conflict"))

    def test_dangling_log_entry(self):
        self.h.commit("a", 1, 2)
        self.h.commit("b", 3, 4)
        os.unlink(self.h.files[1][7:])
        self.assertEqual(self.h.finish()["dangling"], 1)

    def test_orphan_attribution(self):
        self.h.commit("a", 1, 2)
        # A 409 attempt that left its file behind, and an unknown one that did too.
        for hid, outcome in [("x", "conflict"), ("y", "unknown")]:
            snap = {"snapshot-id": 5, "sequence-number": 2, "parent-snapshot-id": 1000,
                    "summary": {"operation": "append", "harness-id": hid}}
            self.h.write_file(self.h.snapshots + [snap], chain=False)
            self.h.records.append({"kind": "commit", "hid": hid, "table": "t", "replica": 0,
                                   "snapshot": 5, "outcome": outcome, "start": 3, "end": 4})
        r = self.h.finish()
        self.assertOnly(r)
        self.assertEqual(r["orphans_by_outcome"], {"conflict": 1, "unknown": 1})

    def test_retries_are_one_operation(self):
        # a: first try unknown but applied, the retry replays 200: fine.
        self.h.commit("a", 1, 2, outcome="unknown")
        self.h.records.append(dict(self.h.records[-1], outcome="ok", start=3, end=4, **{"try": 1}))
        # b: first try unknown but applied, the retry ran it again and got 409: a false 409.
        self.h.commit("b", 5, 6, outcome="unknown")
        self.h.records.append(dict(self.h.records[-1], outcome="conflict", start=7, end=8,
                                   **{"try": 1}))
        r = self.h.finish()
        self.assertOnly(r, false_409=1)
        self.assertEqual((r["attempts"], r["tries"], r["retried"]), (2, 4, 2))

    def test_stale_and_phantom_reads(self):
        sid = self.h.commit("a", 1, 2)
        self.h.records.append({"kind": "load", "table": "t", "replica": 0, "outcome": "ok",
                               "seq": 0, "current": None, "start": 3, "end": 3.1})
        self.h.records.append({"kind": "read", "table": "t", "replica": 0, "outcome": "ok",
                               "seq": 1, "current": 4242, "start": 3, "end": 3.1})
        self.h.records.append({"kind": "read", "table": "t", "replica": 0, "outcome": "ok",
                               "seq": 1, "current": sid, "start": 3, "end": 3.1})
        self.assertOnly(self.h.finish(), stale_reads=1, phantom_reads=1)


if __name__ == "__main__":
    unittest.main()
