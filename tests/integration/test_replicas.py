"""Several cairn replicas on one metastore database.

Runs on SQLite (replicas sharing one file) and, with CAIRN_TEST_DB set, on PostgreSQL (each
test makes a database of its own with psql, so migrations start from an empty database).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import requests

from conftest import LISTENING_RE, _resolve_cairn_bin

REPLICAS = 4
START_TIMEOUT_S = 30.0


def _psql(url: str, sql: str) -> str:
    out = subprocess.run(["psql", url, "-At", "-c", sql], check=True, capture_output=True,
                         text=True, timeout=60)
    return out.stdout.strip()


@pytest.fixture
def empty_database(tmp_path: Path):
    """A metastore URL of an empty database, and a way to read its migration records."""
    pg = os.environ.get("CAIRN_TEST_DB", "")
    if not pg:
        path = tmp_path / "shared.db"
        url = f"sqlite:{path}"

        def versions() -> list[int]:
            with sqlite3.connect(path) as db:
                return [v for (v,) in db.execute(
                    "SELECT version FROM cairn_schema_migrations ORDER BY version")]

        yield url, versions
        return
    name = f"replicas_{uuid.uuid4().hex[:12]}"
    _psql(pg, f"CREATE DATABASE {name}")
    url = pg.rsplit("/", 1)[0] + "/" + name

    def pg_versions() -> list[int]:
        out = _psql(url, "SELECT version FROM cairn_schema_migrations ORDER BY version")
        return [int(v) for v in out.split()]

    yield url, pg_versions


def _start_replicas(db: str, warehouse: Path, count: int) -> list[tuple[subprocess.Popen, str]]:
    """Starts `count` replicas at the same moment and waits for each to listen."""
    procs = []
    for i in range(count):
        procs.append(subprocess.Popen(
            [str(_resolve_cairn_bin()), "serve", "--host", "127.0.0.1", "--port", "0",
             "--db", db, "--warehouse", str(warehouse), "--data-dir", str(warehouse.parent / f"r{i}")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
    replicas = []
    deadline = time.monotonic() + START_TIMEOUT_S
    for p in procs:
        uri = None
        while uri is None and time.monotonic() < deadline:
            line = p.stdout.readline().decode(errors="replace")
            if not line:
                break
            m = LISTENING_RE.search(line)
            if m:
                uri = m.group(1)
        assert uri, f"a replica did not start (exit code {p.poll()})"
        replicas.append((p, uri))
    return replicas


def _stop_all(replicas) -> None:
    for p, _ in replicas:
        p.terminate()
    for p, _ in replicas:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()


def test_replicas_started_together_apply_each_migration_once(empty_database, tmp_path):
    url, versions = empty_database
    replicas = _start_replicas(url, tmp_path / "warehouse", REPLICAS)
    try:
        for _, uri in replicas:
            assert requests.get(f"{uri}/ready", timeout=10).status_code == 200
        recorded = versions()
        assert recorded == list(range(1, len(recorded) + 1))
        assert len(recorded) >= 2
    finally:
        _stop_all(replicas)


def test_an_idempotent_commit_replayed_on_another_replica_returns_the_first_answer(
        empty_database, tmp_path):
    url, _ = empty_database
    replicas = _start_replicas(url, tmp_path / "warehouse", 2)
    (_, a), (_, b) = replicas
    try:
        assert requests.post(f"{a}/v1/namespaces", json={"namespace": ["ns"]},
                             timeout=10).status_code == 200
        schema = {"type": "struct", "fields": [
            {"id": 1, "name": "x", "required": False, "type": "long"}]}
        created = requests.post(f"{a}/v1/namespaces/ns/tables",
                                json={"name": "t", "schema": schema}, timeout=10)
        assert created.status_code == 200
        uuid_ = created.json()["metadata"]["table-uuid"]
        append = {
            "requirements": [{"type": "assert-table-uuid", "uuid": uuid_},
                             {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None}],
            "updates": [
                {"action": "add-snapshot", "snapshot": {
                    "snapshot-id": 1, "sequence-number": 1, "timestamp-ms": 1700000000000,
                    "manifest-list": "file:///nowhere/snap-1.avro",
                    "summary": {"operation": "append"}}},
                {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch",
                 "snapshot-id": 1}]}
        key = str(uuid.uuid4())
        first = requests.post(f"{a}/v1/namespaces/ns/tables/t", data=json.dumps(append),
                              headers={"Idempotency-Key": key}, timeout=10)
        assert first.status_code == 200, first.text
        replay = requests.post(f"{b}/v1/namespaces/ns/tables/t", data=json.dumps(append),
                               headers={"Idempotency-Key": key}, timeout=10)
        assert replay.status_code == 200, replay.text
        assert replay.json()["metadata-location"] == first.json()["metadata-location"]
        loaded = requests.get(f"{b}/v1/namespaces/ns/tables/t", timeout=10).json()
        assert len(loaded["metadata"]["snapshots"]) == 1
        # Without the key the same body is a new attempt, and it loses: main has moved.
        again = requests.post(f"{b}/v1/namespaces/ns/tables/t", data=json.dumps(append),
                              timeout=10)
        assert again.status_code == 409
    finally:
        _stop_all(replicas)


def test_a_binary_refuses_a_schema_newer_than_it_knows(empty_database, tmp_path):
    url, versions = empty_database
    replicas = _start_replicas(url, tmp_path / "warehouse", 1)
    _stop_all(replicas)
    newer = max(versions()) + 1
    insert = ("INSERT INTO cairn_schema_migrations (version, name, applied_at) "
              f"VALUES ({newer}, 'from_the_future', '2099-01-01')")
    if url.startswith("sqlite:"):
        with sqlite3.connect(url[len("sqlite:"):]) as db:
            db.execute(insert)
    else:
        _psql(url, insert)
    refused = subprocess.run(
        [str(_resolve_cairn_bin()), "serve", "--host", "127.0.0.1", "--port", "0", "--db", url,
         "--warehouse", str(tmp_path / "warehouse"), "--data-dir", str(tmp_path / "late")],
        capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0
    assert "newer than this binary knows" in refused.stderr
