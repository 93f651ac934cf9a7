"""The compose stack's client: creates a table through cairn and appends to it with pyiceberg.

    CAIRN_URI=http://cairn:8181 python client.py

pyiceberg asks cairn for its config and gets the S3 endpoint, region, addressing style and keys
from it, so it writes the Parquet files straight to the store. Each run appends one batch and
prints the rows read back; it exits non-zero if the batch it wrote is not there.
"""

from __future__ import annotations

import os
import sys
import time
import uuid

import pyarrow as pa
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

NAMESPACE = os.environ.get("CLIENT_NAMESPACE", "demo")
TABLE = os.environ.get("CLIENT_TABLE", "events")
SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "run", StringType(), required=False),
    NestedField(3, "message", StringType(), required=False),
)
ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("run", pa.string()),
                          pa.field("message", pa.string())])


def main() -> int:
    catalog = RestCatalog("cairn", uri=os.environ.get("CAIRN_URI", "http://cairn:8181"))
    catalog.create_namespace_if_not_exists(NAMESPACE)
    table = catalog.create_table_if_not_exists((NAMESPACE, TABLE), schema=SCHEMA)
    print(f"table {NAMESPACE}.{TABLE} at {table.location()}")

    run = uuid.uuid4().hex[:8]
    rows = [{"id": i, "run": run, "message": f"hello from run {run}, row {i}"} for i in range(3)]
    started = time.monotonic()
    table.append(pa.Table.from_pylist(rows, schema=ARROW_SCHEMA))
    print(f"appended {len(rows)} rows in {time.monotonic() - started:.2f}s "
          f"(snapshot {table.current_snapshot().snapshot_id})")

    read = catalog.load_table((NAMESPACE, TABLE)).scan().to_arrow().to_pylist()
    mine = sorted((r for r in read if r["run"] == run), key=lambda r: r["id"])
    print(f"read back {len(read)} rows in all, {len(mine)} from this run:")
    for r in mine:
        print(f"  {r['id']}  {r['message']}")
    if mine != rows:
        print("the rows read back differ from the rows written", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
