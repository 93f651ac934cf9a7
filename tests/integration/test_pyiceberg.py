"""End-to-end tests of the cairn Iceberg REST catalog, driven by pyiceberg
(and by raw HTTP for the error / protocol cases).

Run with:  python -m pytest tests/integration
The server binary comes from $CAIRN_BIN (default: <repo>/build/cairn).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlparse

import pyarrow as pa
import pytest
import requests
from pyiceberg.exceptions import (
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchTableError,
    TableAlreadyExistsError,
)
from pyiceberg.expressions import EqualTo, GreaterThanOrEqual
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.snapshots import Operation
from pyiceberg.table.sorting import NullOrder, SortDirection, SortField, SortOrder
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform
from pyiceberg.types import IntegerType, LongType, NestedField, StringType, TimestampType

HTTP_TIMEOUT = 30

# --------------------------------------------------------------------------
# shared data helpers
# --------------------------------------------------------------------------

SIMPLE_SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "name", StringType(), required=False),
)
SIMPLE_ARROW = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])


def batch(rows: list[tuple[int, str]]) -> pa.Table:
    return pa.Table.from_pylist([{"id": i, "name": n} for i, n in rows], schema=SIMPLE_ARROW)


def rows_of(arrow_table: pa.Table, columns: tuple[str, ...] = ("id", "name")) -> list[tuple]:
    data = arrow_table.select(list(columns)).to_pylist()
    return sorted((tuple(r[c] for c in columns) for r in data), key=repr)


def sorted_rows(rows) -> list[tuple]:
    return sorted((tuple(r) for r in rows), key=repr)


def make_simple_table(catalog, namespace, unique_name, **kwargs):
    ident = (namespace, unique_name("tbl"))
    return ident, catalog.create_table(ident, schema=SIMPLE_SCHEMA, **kwargs)


def local_path(location: str) -> Path:
    parsed = urlparse(location)
    assert parsed.scheme == "file", f"expected a file:// table location, got {location!r}"
    return Path(unquote(parsed.path))


def files_under(path: Path) -> list[Path]:
    if not path.exists():
        return []
    return sorted(p for p in path.rglob("*") if p.is_file())


# --------------------------------------------------------------------------
# raw HTTP helpers
# --------------------------------------------------------------------------


def describe(resp: requests.Response, body_limit: int = 2000) -> str:
    req = resp.request
    req_body = req.body
    if isinstance(req_body, bytes):
        shown = req_body[:body_limit].decode("utf-8", errors="replace")
        size = len(req_body)
    else:
        shown = (req_body or "")[:body_limit]
        size = len(req_body or "")
    more = f" ... ({size} bytes total)" if size > body_limit else ""
    return (
        f"\n>>> {req.method} {req.url}\n>>> body: {shown}{more}\n"
        f"<<< {resp.status_code} {resp.reason}\n<<< headers: {dict(resp.headers)}\n"
        f"<<< body: {resp.text[:body_limit]}"
    )


def assert_error(
    resp: requests.Response,
    status: int,
    *,
    err_type: str | None = None,
    mentions: tuple[str, ...] = (),
) -> dict:
    """Assert ``resp`` is an Iceberg ErrorModel response with HTTP ``status``.

    ``mentions``: at least one of these (case-insensitive) must occur in the
    error message, i.e. the message names the problem.
    """
    assert resp.status_code == status, describe(resp)
    try:
        body = resp.json()
    except ValueError:
        pytest.fail(f"error body is not JSON:{describe(resp)}")
    assert isinstance(body, dict) and isinstance(body.get("error"), dict), describe(resp)
    err = body["error"]
    assert isinstance(err.get("message"), str) and err["message"].strip(), describe(resp)
    assert isinstance(err.get("type"), str) and err["type"].strip(), describe(resp)
    code = err.get("code")
    assert isinstance(code, int) and not isinstance(code, bool), describe(resp)
    assert code == status, describe(resp)
    if err_type is not None:
        assert err["type"] == err_type, describe(resp)
    if mentions:
        msg = err["message"].lower()
        assert any(m.lower() in msg for m in mentions), (
            f"error message should mention one of {mentions}:{describe(resp)}"
        )
    return err


def post_json(url: str, payload) -> requests.Response:
    return requests.post(url, json=payload, timeout=HTTP_TIMEOUT)


RAW_SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "fields": [
        {"id": 1, "name": "id", "type": "long", "required": False},
        {"id": 2, "name": "name", "type": "string", "required": False},
    ],
}


# ==========================================================================
# namespaces
# ==========================================================================


def test_created_namespace_is_listed_with_its_properties(catalog, unique_name):
    ns = unique_name("ns")
    props = {"owner": "alice", "purpose": "integration test"}
    catalog.create_namespace(ns, props)

    assert (ns,) in catalog.list_namespaces()
    loaded = catalog.load_namespace_properties(ns)
    for key, value in props.items():
        assert loaded.get(key) == value, loaded
    assert catalog.namespace_exists(ns)


def test_creating_an_existing_namespace_raises_already_exists(catalog, namespace):
    with pytest.raises(NamespaceAlreadyExistsError):
        catalog.create_namespace(namespace)


def test_namespace_properties_can_be_set_and_removed(catalog, unique_name):
    ns = unique_name("ns")
    catalog.create_namespace(ns, {"owner": "alice", "purpose": "x", "keep": "1"})

    summary = catalog.update_namespace_properties(
        ns, removals={"purpose", "never_existed"}, updates={"owner": "bob", "added": "yes"}
    )
    assert sorted(summary.removed) == ["purpose"]
    assert sorted(summary.updated) == ["added", "owner"]
    assert sorted(summary.missing) == ["never_existed"]

    loaded = catalog.load_namespace_properties(ns)
    assert loaded.get("owner") == "bob"
    assert loaded.get("added") == "yes"
    assert loaded.get("keep") == "1"
    assert "purpose" not in loaded


def test_nested_namespace_is_listed_under_its_parent(catalog, unique_name):
    parent = unique_name("ns")
    child = (parent, "b")
    catalog.create_namespace(parent)
    catalog.create_namespace(child, {"level": "2"})

    assert child in catalog.list_namespaces(parent)
    assert (parent,) in catalog.list_namespaces()
    assert child not in catalog.list_namespaces(), "a nested namespace must not be listed at the top level"
    assert catalog.load_namespace_properties(child).get("level") == "2"

    # a table inside the nested namespace is reachable through pyiceberg
    ident = (parent, "b", "t")
    catalog.create_table(ident, schema=SIMPLE_SCHEMA)
    assert ident in catalog.list_tables(child)
    catalog.drop_table(ident)

    catalog.drop_namespace(child)
    assert child not in catalog.list_namespaces(parent)
    with pytest.raises(NoSuchNamespaceError):
        catalog.load_namespace_properties(child)
    catalog.drop_namespace(parent)


def test_dropped_namespace_is_gone(catalog, unique_name):
    ns = unique_name("ns")
    catalog.create_namespace(ns)
    catalog.drop_namespace(ns)

    assert (ns,) not in catalog.list_namespaces()
    assert not catalog.namespace_exists(ns)
    with pytest.raises(NoSuchNamespaceError):
        catalog.load_namespace_properties(ns)
    with pytest.raises(NoSuchNamespaceError):
        catalog.drop_namespace(ns)


def test_dropping_a_namespace_that_holds_a_table_fails_with_not_empty(catalog, namespace, unique_name):
    ident, _ = make_simple_table(catalog, namespace, unique_name)

    with pytest.raises(NamespaceNotEmptyError):
        catalog.drop_namespace(namespace)
    # nothing was dropped
    assert catalog.namespace_exists(namespace)
    assert ident in catalog.list_tables(namespace)

    catalog.drop_table(ident)
    catalog.drop_namespace(namespace)
    assert not catalog.namespace_exists(namespace)


def test_loading_an_unknown_namespace_raises_no_such_namespace(catalog, unique_name):
    with pytest.raises(NoSuchNamespaceError):
        catalog.load_namespace_properties(unique_name("missing"))


# ==========================================================================
# tables
# ==========================================================================


def test_created_table_is_listed_and_cannot_be_created_twice(catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)

    assert ident in catalog.list_tables(namespace)
    assert catalog.table_exists(ident)
    assert table.current_snapshot() is None
    assert [(f.field_id, f.name) for f in catalog.load_table(ident).schema().fields] == [(1, "id"), (2, "name")]
    with pytest.raises(TableAlreadyExistsError):
        catalog.create_table(ident, schema=SIMPLE_SCHEMA)


def test_partitioned_table_keeps_its_partition_spec_and_sort_order(catalog, namespace, unique_name):
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "category", StringType(), required=False),
        NestedField(3, "ts", TimestampType(), required=False),
    )
    spec = PartitionSpec(
        PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="category"),
        PartitionField(source_id=3, field_id=1001, transform=DayTransform(), name="ts_day"),
        PartitionField(source_id=1, field_id=1002, transform=BucketTransform(num_buckets=16), name="id_bucket"),
    )
    order = SortOrder(
        SortField(source_id=3, transform=IdentityTransform(), direction=SortDirection.DESC, null_order=NullOrder.NULLS_LAST),
        SortField(source_id=1, transform=IdentityTransform(), direction=SortDirection.ASC, null_order=NullOrder.NULLS_FIRST),
    )
    ident = (namespace, unique_name("tbl"))
    catalog.create_table(ident, schema=schema, partition_spec=spec, sort_order=order)

    table = catalog.load_table(ident)
    tschema = table.schema()

    got_spec = [
        (tschema.find_column_name(f.source_id), f.transform, f.name) for f in table.spec().fields
    ]
    assert got_spec == [
        ("category", IdentityTransform(), "category"),
        ("ts", DayTransform(), "ts_day"),
        ("id", BucketTransform(num_buckets=16), "id_bucket"),
    ]
    # partition field ids are unique and in the partition-field id range
    field_ids = [f.field_id for f in table.spec().fields]
    assert len(set(field_ids)) == 3 and min(field_ids) >= 1000, field_ids

    got_order = [
        (tschema.find_column_name(f.source_id), f.transform, f.direction, f.null_order)
        for f in table.sort_order().fields
    ]
    assert got_order == [
        ("ts", IdentityTransform(), SortDirection.DESC, NullOrder.NULLS_LAST),
        ("id", IdentityTransform(), SortDirection.ASC, NullOrder.NULLS_FIRST),
    ]
    assert table.sort_order().order_id != 0, "a non-empty sort order must not use the reserved unsorted id 0"


def test_identity_partitioned_table_prunes_files_by_partition(catalog, namespace, unique_name):
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "category", StringType(), required=False),
    )
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="category"))
    ident = (namespace, unique_name("tbl"))
    table = catalog.create_table(ident, schema=schema, partition_spec=spec)

    arrow_schema = pa.schema([pa.field("id", pa.int64()), pa.field("category", pa.string())])
    data = [(1, "a"), (2, "b"), (3, "c"), (4, "a"), (5, "b")]
    table.append(pa.Table.from_pylist([{"id": i, "category": c} for i, c in data], schema=arrow_schema))

    table = catalog.load_table(ident)
    assert rows_of(table.scan().to_arrow(), ("id", "category")) == sorted_rows(data)
    assert len(list(table.scan().plan_files())) == 3, "one data file per category partition"

    b_scan = table.scan(row_filter=EqualTo("category", "b"))
    b_files = list(b_scan.plan_files())
    assert len(b_files) == 1, [t.file.file_path for t in b_files]
    assert rows_of(b_scan.to_arrow(), ("id", "category")) == [(2, "b"), (5, "b")]


def test_appended_batches_read_back_exactly(catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)
    first = [(1, "one"), (2, "two"), (3, "three")]
    second = [(4, "four"), (5, None), (6, "six"), (7, "seven")]

    table.append(batch(first))
    table.append(batch(second))

    reloaded = catalog.load_table(ident)
    assert rows_of(reloaded.scan().to_arrow()) == sorted_rows(first + second)
    assert len(reloaded.snapshots()) == 2
    assert [s.summary.operation for s in reloaded.snapshots()] == [Operation.APPEND, Operation.APPEND]
    assert reloaded.current_snapshot().summary.get("total-records") == "7"


def test_added_column_reads_null_for_rows_written_before_it(catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)
    table.append(batch([(1, "a"), (2, "b")]))
    old_schema_id = catalog.load_table(ident).schema().schema_id

    with table.update_schema() as update:
        update.add_column("note", StringType(), doc="added later")

    reloaded = catalog.load_table(ident)
    new_schema = reloaded.schema()
    assert new_schema.schema_id != old_schema_id
    assert [f.name for f in new_schema.fields] == ["id", "name", "note"]
    note = new_schema.find_field("note")
    assert note.field_id not in (1, 2) and not note.required

    evolved_arrow = pa.schema(
        [pa.field("id", pa.int64()), pa.field("name", pa.string()), pa.field("note", pa.string())]
    )
    reloaded.append(
        pa.Table.from_pylist(
            [{"id": 3, "name": "c", "note": "n3"}, {"id": 4, "name": "d", "note": None}], schema=evolved_arrow
        )
    )

    result = catalog.load_table(ident).scan().to_arrow()
    assert result.column_names == ["id", "name", "note"]
    assert rows_of(result, ("id", "name", "note")) == sorted_rows(
        [(1, "a", None), (2, "b", None), (3, "c", "n3"), (4, "d", None)]
    )


def test_overwrite_replaces_all_rows(catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)
    table.append(batch([(1, "a"), (2, "b"), (3, "c")]))
    before = table.current_snapshot().snapshot_id

    replacement = [(10, "x"), (20, "y")]
    table.overwrite(batch(replacement))

    reloaded = catalog.load_table(ident)
    assert rows_of(reloaded.scan().to_arrow()) == sorted_rows(replacement)
    assert reloaded.current_snapshot().snapshot_id != before
    # the previous state is still reachable by time travel
    assert rows_of(reloaded.scan(snapshot_id=before).to_arrow()) == [(1, "a"), (2, "b"), (3, "c")]


def test_delete_removes_only_matching_rows(catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)
    table.append(batch([(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e"), (6, "b")]))

    table.delete(delete_filter=GreaterThanOrEqual("id", 5))
    assert rows_of(catalog.load_table(ident).scan().to_arrow()) == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]

    table = catalog.load_table(ident)
    table.delete(delete_filter=EqualTo("name", "b"))
    assert rows_of(catalog.load_table(ident).scan().to_arrow()) == [(1, "a"), (3, "c"), (4, "d")]


def test_scan_at_first_snapshot_returns_only_first_batch(catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)
    first = [(1, "a"), (2, "b")]
    second = [(3, "c"), (4, "d"), (5, "e")]

    table.append(batch(first))
    first_snapshot = table.current_snapshot().snapshot_id
    table.append(batch(second))
    second_snapshot = table.current_snapshot().snapshot_id
    assert first_snapshot != second_snapshot

    reloaded = catalog.load_table(ident)
    assert reloaded.current_snapshot().snapshot_id == second_snapshot
    assert reloaded.current_snapshot().parent_snapshot_id == first_snapshot
    assert rows_of(reloaded.scan(snapshot_id=first_snapshot).to_arrow()) == sorted_rows(first)
    assert rows_of(reloaded.scan(snapshot_id=second_snapshot).to_arrow()) == sorted_rows(first + second)
    assert rows_of(reloaded.scan().to_arrow()) == sorted_rows(first + second)


def test_renamed_table_loads_under_new_name_only(catalog, namespace, unique_name):
    old_ident, table = make_simple_table(catalog, namespace, unique_name)
    data = [(1, "a"), (2, "b")]
    table.append(batch(data))
    uuid_before = table.metadata.table_uuid

    new_ident = (namespace, unique_name("renamed"))
    catalog.rename_table(old_ident, new_ident)

    with pytest.raises(NoSuchTableError):
        catalog.load_table(old_ident)
    assert not catalog.table_exists(old_ident)
    listed = catalog.list_tables(namespace)
    assert new_ident in listed and old_ident not in listed

    renamed = catalog.load_table(new_ident)
    assert renamed.metadata.table_uuid == uuid_before
    assert rows_of(renamed.scan().to_arrow()) == sorted_rows(data)


def test_renaming_onto_an_existing_table_raises_already_exists(catalog, namespace, unique_name):
    a, _ = make_simple_table(catalog, namespace, unique_name)
    b, _ = make_simple_table(catalog, namespace, unique_name)
    with pytest.raises(TableAlreadyExistsError):
        catalog.rename_table(a, b)
    assert catalog.table_exists(a) and catalog.table_exists(b)


def test_purged_table_is_gone_and_its_files_removed(server, catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)
    table.append(batch([(1, "a"), (2, "b")]))
    table.append(batch([(3, "c")]))
    table = catalog.load_table(ident)

    location = local_path(table.location())
    warehouse = server.warehouse.resolve()
    assert location.resolve().is_relative_to(warehouse), f"table location {location} is not under {warehouse}"

    data_files = [local_path(task.file.file_path) for task in table.scan().plan_files()]
    assert len(data_files) == 2
    assert all(p.is_file() for p in data_files), data_files
    assert all(p.resolve().is_relative_to(location.resolve()) for p in data_files), (location, data_files)
    metadata_file = local_path(table.metadata_location)
    assert metadata_file.is_file(), metadata_file

    catalog.purge_table(ident)

    with pytest.raises(NoSuchTableError):
        catalog.load_table(ident)
    assert not catalog.table_exists(ident)
    assert ident not in catalog.list_tables(namespace)

    # purge may finish asynchronously: give it a bounded grace period
    deadline = time.monotonic() + 10
    leftovers = files_under(location)
    while leftovers and time.monotonic() < deadline:
        time.sleep(0.2)
        leftovers = files_under(location)
    assert not any(p.exists() for p in data_files), data_files
    assert not metadata_file.exists(), metadata_file
    assert leftovers == [], f"files left under purged table location {location}: {leftovers}"


def test_dropped_table_without_purge_is_gone_from_catalog(catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)
    table.append(batch([(1, "a")]))
    catalog.drop_table(ident)
    with pytest.raises(NoSuchTableError):
        catalog.load_table(ident)
    with pytest.raises(NoSuchTableError):
        catalog.drop_table(ident)


# ==========================================================================
# concurrency
# ==========================================================================

N_WRITERS = 4
APPENDS_PER_WRITER = 25
ROWS_PER_APPEND = 3
MAX_ATTEMPTS_PER_APPEND = 200
WORKER_TIME_BUDGET_S = 240

CONCURRENT_SCHEMA = Schema(
    NestedField(1, "writer", IntegerType(), required=False),
    NestedField(2, "seq", IntegerType(), required=False),
    NestedField(3, "k", IntegerType(), required=False),
)

# Runs in a separate OS process: python -c WORKER_SRC <args>
WORKER_SRC = r"""
import json, os, random, sys, time
import pyarrow as pa
import requests
import requests.adapters
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import CommitFailedException

uri, ns, name = sys.argv[1], sys.argv[2], sys.argv[3]
writer, n_appends, rows_per, max_attempts = (int(x) for x in sys.argv[4:8])
deadline, barrier_dir = float(sys.argv[8]), sys.argv[9]

schema = pa.schema([pa.field("writer", pa.int32()), pa.field("seq", pa.int32()), pa.field("k", pa.int32())])


class TimeoutAdapter(requests.adapters.HTTPAdapter):
    def send(self, request, **kwargs):
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = 60
        return super().send(request, **kwargs)


catalog = RestCatalog("cairn", uri=uri)
if isinstance(getattr(catalog, "_session", None), requests.Session):
    catalog._session.mount("http://", TimeoutAdapter())
table = catalog.load_table((ns, name))

# start together to maximise contention: announce readiness, wait for "go" (bounded)
open(os.path.join(barrier_dir, "ready-%d" % writer), "w").close()
while not os.path.exists(os.path.join(barrier_dir, "go")):
    if time.time() > deadline:
        print(json.dumps({"writer": writer, "error": "never got the go signal"}), file=sys.stderr)
        sys.exit(4)
    time.sleep(0.001)

conflicts = 0
t_start = time.time()
for seq in range(n_appends):
    rows = [{"writer": writer, "seq": seq, "k": k} for k in range(rows_per)]
    data = pa.Table.from_pylist(rows, schema=schema)
    for attempt in range(1, max_attempts + 1):
        if time.time() > deadline:
            print(json.dumps({"writer": writer, "error": "time budget exceeded", "seq": seq}), file=sys.stderr)
            sys.exit(3)
        try:
            table.append(data)
            break
        except CommitFailedException:
            conflicts += 1
            time.sleep(random.uniform(0, 0.005 * min(attempt, 20)))
            table = catalog.load_table((ns, name))
    else:
        print(json.dumps({"writer": writer, "error": "too many commit conflicts", "seq": seq}), file=sys.stderr)
        sys.exit(2)

print(json.dumps({"writer": writer, "appends": n_appends, "conflicts": conflicts,
                  "elapsed_s": round(time.time() - t_start, 3)}))
"""


def run_concurrent_writers(uri, namespace, name, tmp_path):
    """Runs N_WRITERS processes of WORKER_SRC, each appending APPENDS_PER_WRITER times to the
    table, released together once all have loaded it; every loop and wait is bounded. Asserts
    that each exited cleanly and returns their final JSON reports by writer number."""
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    deadline = time.time() + WORKER_TIME_BUDGET_S
    workers = []
    try:
        for w in range(N_WRITERS):
            out = open(tmp_path / f"worker{w}.out", "wb")
            err = open(tmp_path / f"worker{w}.err", "wb")
            args = [
                sys.executable, "-c", WORKER_SRC, uri, namespace, name,
                str(w), str(APPENDS_PER_WRITER), str(ROWS_PER_APPEND), str(MAX_ATTEMPTS_PER_APPEND),
                repr(deadline), str(barrier),
            ]  # fmt: skip
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
            workers.append((w, proc, out, err))

        # release the writers together once all have loaded the table (bounded wait)
        ready_deadline = time.time() + 60
        while time.time() < ready_deadline:
            if all((barrier / f"ready-{w}").exists() for w in range(N_WRITERS)):
                break
            if any(proc.poll() is not None for _, proc, _, _ in workers):
                break  # a writer died early; its exit status is reported below
            time.sleep(0.01)
        (barrier / "go").touch()

        for w, proc, _, _ in workers:
            remaining = max(1.0, deadline + 15 - time.time())
            try:
                proc.wait(timeout=remaining)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
    finally:
        for _, proc, out, err in workers:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
            out.close()
            err.close()

    reports = {}
    for w, proc, _, _ in workers:
        stdout = (tmp_path / f"worker{w}.out").read_text(errors="replace")
        stderr = (tmp_path / f"worker{w}.err").read_text(errors="replace")
        assert proc.returncode == 0, f"writer {w} exited with {proc.returncode}\nstdout:\n{stdout}\nstderr:\n{stderr[-5000:]}"
        reports[w] = json.loads(stdout.strip().splitlines()[-1])
    return reports


def test_concurrent_appends_from_four_processes_all_land_exactly_once(server, catalog, namespace, unique_name, tmp_path):
    name = unique_name("concurrent")
    ident = (namespace, name)
    # pyiceberg 0.12 would retry a conflicting commit internally (with backoff);
    # switch that off so every 409 reaches the writer's own reload-and-retry loop.
    catalog.create_table(ident, schema=CONCURRENT_SCHEMA, properties={"commit.retry.num-retries": "0"})

    reports = run_concurrent_writers(server.uri, namespace, name, tmp_path)
    conflicts = sum(r["conflicts"] for r in reports.values())
    print(f"{N_WRITERS} writers x {APPENDS_PER_WRITER} appends: {conflicts} commit conflicts retried; {reports}")

    table = catalog.load_table(ident)
    total_appends = N_WRITERS * APPENDS_PER_WRITER

    snapshots = table.snapshots()
    ops = Counter(s.summary.operation for s in snapshots)
    assert ops == Counter({Operation.APPEND: total_appends}), f"snapshot operations: {ops} (conflicts seen: {conflicts})"

    by_id = {s.snapshot_id: s for s in snapshots}
    assert len(by_id) == total_appends, "snapshot ids must be unique"
    chain = []
    current = table.current_snapshot()
    while current is not None and len(chain) <= total_appends:
        chain.append(current.snapshot_id)
        parent = current.parent_snapshot_id
        current = by_id.get(parent) if parent is not None else None
        assert parent is None or current is not None, f"parent snapshot {parent} missing from metadata"
    assert len(chain) == total_appends, f"snapshot chain from current has {len(chain)} entries"
    assert len(set(chain)) == total_appends
    assert table.current_snapshot().summary.get("total-records") == str(total_appends * ROWS_PER_APPEND)

    result = table.scan().to_arrow().to_pylist()
    assert len(result) == N_WRITERS * APPENDS_PER_WRITER * ROWS_PER_APPEND
    triples = Counter((r["writer"], r["seq"], r["k"]) for r in result)
    expected = Counter(
        (w, s, k) for w in range(N_WRITERS) for s in range(APPENDS_PER_WRITER) for k in range(ROWS_PER_APPEND)
    )
    assert triples == expected, f"missing: {expected - triples}, extra: {triples - expected}"
    per_batch = Counter((r["writer"], r["seq"]) for r in result)
    assert set(per_batch.values()) == {ROWS_PER_APPEND}


# ==========================================================================
# bad input (raw HTTP)
# ==========================================================================


def test_malformed_json_body_is_rejected_with_400(server):
    resp = requests.post(
        server.api("namespaces"),
        data=b'{"namespace": ["x"',
        headers={"Content-Type": "application/json"},
        timeout=HTTP_TIMEOUT,
    )
    assert_error(resp, 400, mentions=("json", "parse", "malformed", "syntax"))


def test_namespace_of_wrong_type_is_rejected_with_400(server):
    resp = post_json(server.api("namespaces"), {"namespace": "notalist"})
    assert_error(resp, 400, mentions=("namespace",))


def test_missing_namespace_field_is_rejected_with_400(server):
    resp = post_json(server.api("namespaces"), {})
    assert_error(resp, 400, mentions=("namespace",))


def test_table_with_empty_name_is_rejected_with_400(server, namespace):
    resp = post_json(server.api(f"namespaces/{namespace}/tables"), {"name": "", "schema": RAW_SCHEMA})
    assert_error(resp, 400, mentions=("name",))


def test_table_name_containing_slash_is_rejected_with_400(server, catalog, namespace):
    resp = post_json(server.api(f"namespaces/{namespace}/tables"), {"name": "a/b", "schema": RAW_SCHEMA})
    assert_error(resp, 400, mentions=("name", "/"))
    assert catalog.list_tables(namespace) == []


def test_listing_tables_of_unknown_namespace_is_404_no_such_namespace(server, unique_name):
    missing = unique_name("missing")
    resp = requests.get(server.api(f"namespaces/{missing}/tables"), timeout=HTTP_TIMEOUT)
    assert_error(resp, 404, err_type="NoSuchNamespaceException", mentions=(missing,))


def test_loading_unknown_table_is_404_no_such_table(server, namespace, unique_name):
    missing = unique_name("missing")
    resp = requests.get(server.api(f"namespaces/{namespace}/tables/{missing}"), timeout=HTTP_TIMEOUT)
    assert_error(resp, 404, err_type="NoSuchTableException", mentions=(missing,))


def test_oversized_body_is_rejected_with_413(server, catalog, unique_name):
    ns = unique_name("big")
    # a well-formed request whose only problem is its size (~20 MiB)
    payload = json.dumps({"namespace": [ns], "properties": {"blob": "x" * (20 * 1024 * 1024)}}).encode()
    try:
        resp = requests.post(
            server.api("namespaces"),
            data=payload,
            headers={"Content-Type": "application/json"},
            timeout=60,
        )
    except requests.ConnectionError as exc:
        pytest.fail(f"server dropped the connection instead of answering 413 to a {len(payload)}-byte body: {exc!r}")
    assert_error(resp, 413, mentions=("size", "large", "limit", "bytes", "exceed"))
    assert not catalog.namespace_exists(ns)


def test_unknown_update_action_is_rejected_with_400(server, catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)
    resp = post_json(
        server.api(f"namespaces/{namespace}/tables/{ident[1]}"),
        {
            "identifier": {"namespace": [namespace], "name": ident[1]},
            "requirements": [],
            "updates": [{"action": "frobnicate-table", "how": "hard"}],
        },
    )
    assert_error(resp, 400, mentions=("frobnicate-table", "action", "update"))
    assert catalog.load_table(ident).metadata.last_updated_ms == table.metadata.last_updated_ms


def test_commit_with_wrong_table_uuid_is_409_commit_failed(server, catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)
    wrong_uuid = "00000000-0000-4000-8000-000000000000"
    assert str(table.metadata.table_uuid) != wrong_uuid
    resp = post_json(
        server.api(f"namespaces/{namespace}/tables/{ident[1]}"),
        {
            "identifier": {"namespace": [namespace], "name": ident[1]},
            "requirements": [{"type": "assert-table-uuid", "uuid": wrong_uuid}],
            "updates": [{"action": "set-properties", "updates": {"should-not": "appear"}}],
        },
    )
    assert_error(resp, 409, err_type="CommitFailedException", mentions=("uuid",))
    assert "should-not" not in catalog.load_table(ident).properties


# ==========================================================================
# protocol: config, health, ETag
# ==========================================================================

ENDPOINT_RE = re.compile(r"^(GET|HEAD|POST|PUT|DELETE) /v1/\S+$")


def test_config_advertises_defaults_overrides_and_endpoints(server):
    resp = requests.get(f"{server.uri}/v1/config", timeout=HTTP_TIMEOUT)
    assert resp.status_code == 200, describe(resp)
    cfg = resp.json()
    assert isinstance(cfg.get("defaults"), dict), cfg
    assert isinstance(cfg.get("overrides"), dict), cfg
    endpoints = cfg.get("endpoints")
    assert isinstance(endpoints, list) and endpoints, cfg
    assert all(isinstance(e, str) and ENDPOINT_RE.match(e) for e in endpoints), endpoints
    assert len(set(endpoints)) == len(endpoints), "endpoints are listed once each"
    # every route pyiceberg uses in this suite must be advertised, or pyiceberg refuses to call it
    required = {
        "GET /v1/{prefix}/namespaces",
        "POST /v1/{prefix}/namespaces",
        "GET /v1/{prefix}/namespaces/{namespace}",
        "DELETE /v1/{prefix}/namespaces/{namespace}",
        "POST /v1/{prefix}/namespaces/{namespace}/properties",
        "GET /v1/{prefix}/namespaces/{namespace}/tables",
        "POST /v1/{prefix}/namespaces/{namespace}/tables",
        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/tables/rename",
    }
    assert required <= set(endpoints), f"missing endpoints: {sorted(required - set(endpoints))}"


def test_health_and_ready_return_200(server):
    for path in ("/health", "/ready"):
        resp = requests.get(f"{server.uri}{path}", timeout=HTTP_TIMEOUT)
        assert resp.status_code == 200, describe(resp)


def test_load_table_etag_yields_304_until_table_changes(server, catalog, namespace, unique_name):
    ident, table = make_simple_table(catalog, namespace, unique_name)
    url = server.api(f"namespaces/{namespace}/tables/{ident[1]}")

    first = requests.get(url, timeout=HTTP_TIMEOUT)
    assert first.status_code == 200, describe(first)
    etag = first.headers.get("ETag")
    assert etag, f"loadTable response has no ETag header:{describe(first)}"
    assert first.json()["metadata"]["table-uuid"] == str(table.metadata.table_uuid)

    again = requests.get(url, timeout=HTTP_TIMEOUT)
    assert again.status_code == 200 and again.headers.get("ETag") == etag, describe(again)

    cached = requests.get(url, headers={"If-None-Match": etag}, timeout=HTTP_TIMEOUT)
    assert cached.status_code == 304, describe(cached)
    assert cached.content == b"", describe(cached)

    commit = post_json(
        url,
        {
            "identifier": {"namespace": [namespace], "name": ident[1]},
            "requirements": [{"type": "assert-table-uuid", "uuid": str(table.metadata.table_uuid)}],
            "updates": [{"action": "set-properties", "updates": {"etag-test": "changed"}}],
        },
    )
    assert commit.status_code == 200, describe(commit)

    after = requests.get(url, headers={"If-None-Match": etag}, timeout=HTTP_TIMEOUT)
    assert after.status_code == 200, describe(after)
    assert after.json()["metadata"]["properties"].get("etag-test") == "changed"
    new_etag = after.headers.get("ETag")
    assert new_etag and new_etag != etag, describe(after)

    cached_new = requests.get(url, headers={"If-None-Match": new_etag}, timeout=HTTP_TIMEOUT)
    assert cached_new.status_code == 304, describe(cached_new)
