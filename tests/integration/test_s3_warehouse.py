"""pyiceberg against cairn serving an s3:// warehouse on a real S3-compatible server.

The server is the one tests/support/s3.sh starts (./run.sh test does), named by the
CAIRN_TEST_S3_* variables; without them these tests fail. cairn hands the endpoint, region,
path-style flag and keys to pyiceberg in its config, and pyiceberg writes its data files to the
store itself. Objects are inspected with pyarrow's S3 filesystem, independently of cairn.
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from urllib.parse import urlparse

import pyarrow.fs as pafs
import pytest
import requests
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.table.snapshots import Operation

from conftest import cairn_server, make_catalog, s3_warehouse_args
from test_pyiceberg import (
    APPENDS_PER_WRITER,
    CONCURRENT_SCHEMA,
    N_WRITERS,
    ROWS_PER_APPEND,
    SIMPLE_SCHEMA,
    batch,
    rows_of,
    run_concurrent_writers,
)

HTTP_TIMEOUT = 30


@pytest.fixture(scope="module")
def s3_server(tmp_path_factory):
    prefix = f"pytest-{uuid.uuid4().hex[:12]}"
    args = s3_warehouse_args(prefix) + ["--catalog-name", f"pytest_s3_{uuid.uuid4().hex[:12]}"]
    with cairn_server(tmp_path_factory, args) as srv:
        yield srv


@pytest.fixture
def s3_catalog(s3_server):
    cat = make_catalog(s3_server.uri)
    yield cat
    cat.close()


@pytest.fixture
def s3_namespace(s3_catalog, unique_name) -> str:
    ns = unique_name("ns")
    s3_catalog.create_namespace(ns)
    return ns


def store() -> pafs.S3FileSystem:
    """The test server, seen directly (not through cairn)."""
    endpoint = urlparse(os.environ["CAIRN_TEST_S3_ENDPOINT"])
    return pafs.S3FileSystem(
        endpoint_override=endpoint.netloc,
        scheme=endpoint.scheme,
        region=os.environ["CAIRN_TEST_S3_REGION"],
        access_key=os.environ["CAIRN_TEST_S3_ACCESS_KEY_ID"],
        secret_key=os.environ["CAIRN_TEST_S3_SECRET_ACCESS_KEY"],
        force_virtual_addressing=False,
    )


def objects_under(location: str) -> list[str]:
    """Every object below an s3:// location, as s3:// URIs."""
    assert location.startswith("s3://"), location
    path = location[len("s3://"):].rstrip("/")
    infos = store().get_file_info(pafs.FileSelector(path, recursive=True, allow_not_found=True))
    return sorted("s3://" + i.path for i in infos if i.type == pafs.FileType.File)


def test_server_reports_the_probe_finding_at_startup_and_in_config(s3_server):
    assert any("s3 conditional writes (If-None-Match: *): honoured (second PUT answered 412)" in line
               for line in s3_server.stdout_lines), s3_server.stdout_lines
    defaults = s3_server.config()["defaults"]
    assert defaults["cairn.storage.put-if-absent"] == "true"


def test_config_gives_clients_what_they_need_to_reach_the_store(s3_server, s3_catalog, s3_namespace, unique_name):
    expected = {
        "s3.endpoint": os.environ["CAIRN_TEST_S3_ENDPOINT"],
        "s3.region": os.environ["CAIRN_TEST_S3_REGION"],
        "s3.path-style-access": "true",
        "s3.force-virtual-addressing": "false",
        "s3.access-key-id": os.environ["CAIRN_TEST_S3_ACCESS_KEY_ID"],
        "s3.secret-access-key": os.environ["CAIRN_TEST_S3_SECRET_ACCESS_KEY"],
    }
    defaults = s3_server.config()["defaults"]
    assert {k: defaults.get(k) for k in expected} == expected

    name = unique_name("tbl")
    s3_catalog.create_table((s3_namespace, name), schema=SIMPLE_SCHEMA)
    resp = requests.get(s3_server.api(f"namespaces/{s3_namespace}/tables/{name}"), timeout=HTTP_TIMEOUT)
    assert resp.status_code == 200, resp.text
    assert resp.json()["config"] == {k: v for k, v in defaults.items() if k.startswith("s3.")}


def test_tables_live_under_the_warehouse_prefix_in_the_bucket(s3_server, s3_catalog, s3_namespace, unique_name):
    ident = (s3_namespace, unique_name("tbl"))
    table = s3_catalog.create_table(ident, schema=SIMPLE_SCHEMA)
    bucket = os.environ["CAIRN_TEST_S3_BUCKET"]
    assert table.location().startswith(f"s3://{bucket}/pytest-"), table.location()
    assert table.location().endswith(f"/{s3_namespace}/{ident[1]}")
    assert objects_under(table.location()) == [table.metadata_location]


def test_a_location_outside_the_warehouse_prefix_is_refused(s3_server, s3_catalog, s3_namespace, unique_name):
    bucket = os.environ["CAIRN_TEST_S3_BUCKET"]
    body = {"name": unique_name("tbl"), "schema": {"type": "struct", "schema-id": 0, "fields": []}}
    for location in (f"s3://{bucket}/elsewhere/t", f"s3://other-bucket/t", "file:///tmp/t",
                     s3_server.config()["defaults"].get("s3.endpoint", "") + "/t"):
        body["location"] = location
        resp = requests.post(s3_server.api(f"namespaces/{s3_namespace}/tables"), json=body, timeout=HTTP_TIMEOUT)
        assert resp.status_code == 400, (location, resp.text)
        assert "outside the warehouse" in resp.json()["error"]["message"]


def test_appended_rows_read_back_exactly_from_the_store(s3_catalog, s3_namespace, unique_name):
    ident = (s3_namespace, unique_name("tbl"))
    table = s3_catalog.create_table(ident, schema=SIMPLE_SCHEMA)
    first = [(1, "a"), (2, "b"), (3, "c")]
    second = [(4, "d"), (5, "é ✓")]
    table.append(batch(first))
    table.append(batch(second))

    reloaded = s3_catalog.load_table(ident)
    assert rows_of(reloaded.scan().to_arrow()) == sorted(first + second, key=repr)
    assert len(reloaded.snapshots()) == 2
    data_files = [task.file.file_path for task in reloaded.scan().plan_files()]
    assert len(data_files) == 2
    stored = objects_under(reloaded.location())
    assert all(f in stored for f in data_files), (data_files, stored)
    assert reloaded.metadata_location in stored


def test_purge_removes_the_tables_objects_from_the_store(s3_catalog, s3_namespace, unique_name):
    ident = (s3_namespace, unique_name("tbl"))
    table = s3_catalog.create_table(ident, schema=SIMPLE_SCHEMA)
    table.append(batch([(1, "a")]))
    table.append(batch([(2, "b")]))
    location = s3_catalog.load_table(ident).location()
    assert len(objects_under(location)) >= 5  # 3 metadata files, 2 data files, manifests

    s3_catalog.purge_table(ident)
    assert not s3_catalog.table_exists(ident)
    assert objects_under(location) == []


def test_four_writers_times_25_appends_give_exactly_100_snapshots_and_no_stray_metadata(
        s3_server, s3_catalog, s3_namespace, unique_name, tmp_path):
    name = unique_name("concurrent")
    ident = (s3_namespace, name)
    s3_catalog.create_table(ident, schema=CONCURRENT_SCHEMA, properties={"commit.retry.num-retries": "0"})

    reports = run_concurrent_writers(s3_server.uri, s3_namespace, name, tmp_path)
    conflicts = sum(r["conflicts"] for r in reports.values())
    print(f"{N_WRITERS} writers x {APPENDS_PER_WRITER} appends on S3: {conflicts} conflicts retried")

    table = s3_catalog.load_table(ident)
    total = N_WRITERS * APPENDS_PER_WRITER
    snapshots = table.snapshots()
    assert len(snapshots) == total
    assert Counter(s.summary.operation for s in snapshots) == Counter({Operation.APPEND: total})
    rows = table.scan().to_arrow().to_pylist()
    assert Counter((r["writer"], r["seq"], r["k"]) for r in rows) == Counter(
        (w, s, k) for w in range(N_WRITERS) for s in range(APPENDS_PER_WRITER) for k in range(ROWS_PER_APPEND))

    # Every metadata file cairn wrote is in the table's history: a commit that lost its
    # compare-and-swap deleted the file it had written.
    history = {e.metadata_file for e in table.metadata.metadata_log} | {table.metadata_location}
    stored = {f for f in objects_under(table.location() + "/metadata") if f.endswith(".metadata.json")}
    assert stored == history, f"stray: {sorted(stored - history)}, missing: {sorted(history - stored)}"


def test_a_commit_that_fails_leaves_no_metadata_file_behind(s3_catalog, s3_namespace, unique_name):
    ident = (s3_namespace, unique_name("tbl"))
    table = s3_catalog.create_table(ident, schema=SIMPLE_SCHEMA, properties={"commit.retry.num-retries": "0"})
    stale = s3_catalog.load_table(ident)
    table.append(batch([(1, "a")]))
    before = objects_under(table.location() + "/metadata")
    with pytest.raises(CommitFailedException):
        stale.append(batch([(2, "b")]))  # based on a snapshot that is no longer current
    after = objects_under(table.location() + "/metadata")
    new_metadata = [f for f in after if f not in before and f.endswith(".metadata.json")]
    assert new_metadata == [], new_metadata
    assert rows_of(s3_catalog.load_table(ident).scan().to_arrow()) == [(1, "a")]
