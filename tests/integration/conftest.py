"""Fixtures for the cairn pyiceberg integration suite.

The suite starts one cairn server per test session:

    $CAIRN_BIN serve --host 127.0.0.1 --port 0 --data-dir <tmp dir>

``CAIRN_BIN`` defaults to ``<repo root>/build/cairn``.  With ``CAIRN_TEST_DB`` set
(a ``postgresql://`` URL) the server uses that metastore, under a catalog name of
its own so each session starts from an empty catalog.  The server announces
readiness on stdout with a line containing
``listening on http://127.0.0.1:<port>``.

``cairn_server(tmp_path_factory, extra_args)`` starts further servers the same way;
``s3_warehouse_args(prefix)`` gives the flags of an ``s3://`` warehouse on the test S3 server
(test_s3_warehouse.py).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import re
import signal
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import pytest
import requests
import requests.adapters

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CAIRN_BIN = REPO_ROOT / "build" / "cairn"

STARTUP_TIMEOUT_S = 20.0
SHUTDOWN_GRACE_S = 5.0
LISTENING_RE = re.compile(r"listening on (http://127\.0\.0\.1:(\d+))")


@dataclass
class CairnServer:
    """A running cairn server process."""

    uri: str
    port: int
    data_dir: Path
    warehouse: Path
    process: subprocess.Popen
    stderr_path: Path
    stdout_lines: list[str] = field(default_factory=list)

    def stderr_text(self, limit: int = 20000) -> str:
        try:
            text = self.stderr_path.read_text(errors="replace")
        except OSError as exc:  # pragma: no cover - diagnostics only
            return f"<could not read server stderr: {exc}>"
        return text[-limit:]

    def config(self) -> dict:
        resp = requests.get(f"{self.uri}/v1/config", timeout=10)
        resp.raise_for_status()
        return resp.json()

    def api(self, path: str) -> str:
        """URL for a catalog route, honouring any ``prefix`` the server
        advertises in its config (``path`` is relative to ``/v1/{prefix}/``)."""
        cfg = self.config()
        prefix = (cfg.get("overrides") or {}).get("prefix") or (cfg.get("defaults") or {}).get("prefix") or ""
        base = f"{self.uri}/v1/"
        if prefix:
            base += prefix.strip("/") + "/"
        return base + path.lstrip("/")


def _resolve_cairn_bin() -> Path:
    return Path(os.environ.get("CAIRN_BIN") or DEFAULT_CAIRN_BIN)


def _pump_stdout(stream, lines: list[str], ready: "queue.Queue[str]") -> None:
    """Drain the server's stdout for its whole life so the pipe never fills.

    Every line is kept (for diagnostics) and also offered to ``ready``.
    """
    try:
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            lines.append(line)
            ready.put(line)
    finally:
        ready.put(None)  # EOF marker


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=SHUTDOWN_GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=SHUTDOWN_GRACE_S)


def _metastore_args() -> list[str]:
    db = os.environ.get("CAIRN_TEST_DB", "")
    if not db:
        return []
    return ["--db", db, "--catalog-name", f"pytest_{os.getpid()}_{int(time.time())}"]


def s3_warehouse_args(prefix: str) -> list[str]:
    """Flags serving a warehouse at s3://$CAIRN_TEST_S3_BUCKET/<prefix> on the S3-compatible
    server of tests/support/s3.sh (named by the CAIRN_TEST_S3_* variables), with the keys
    handed to clients so pyiceberg writes its data files there itself."""
    names = ["ENDPOINT", "REGION", "BUCKET", "ACCESS_KEY_ID", "SECRET_ACCESS_KEY"]
    env = {n: os.environ.get(f"CAIRN_TEST_S3_{n}", "") for n in names}
    missing = [f"CAIRN_TEST_S3_{n}" for n, v in env.items() if not v]
    if missing:
        pytest.fail(f"{', '.join(missing)} not set: run ./run.sh test, or start a server with "
                    'eval "$(tests/support/s3.sh start DIR)"', pytrace=False)
    return ["--warehouse", f"s3://{env['BUCKET']}/{prefix}",
            "--s3-endpoint", env["ENDPOINT"], "--s3-region", env["REGION"],
            "--s3-path-style", "true", "--s3-vend-credentials", "true",
            "--s3-access-key-id", env["ACCESS_KEY_ID"],
            "--s3-secret-access-key", env["SECRET_ACCESS_KEY"]]  # fmt: skip


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CairnServer]:
    with cairn_server(tmp_path_factory) as srv:
        yield srv


@contextlib.contextmanager
def cairn_server(tmp_path_factory: pytest.TempPathFactory, extra_args: list[str] = ()) -> Iterator[CairnServer]:
    """Starts cairn on a free port (metastore per CAIRN_TEST_DB, further flags `extra_args`),
    waits for it to listen, and stops it on exit."""
    cairn_bin = _resolve_cairn_bin()
    if not cairn_bin.exists():
        pytest.fail(
            f"cairn binary not found at {cairn_bin} (build it, or point CAIRN_BIN at it)",
            pytrace=False,
        )

    data_dir = tmp_path_factory.mktemp("cairn-data")
    log_dir = tmp_path_factory.mktemp("cairn-logs")
    stderr_path = log_dir / "server.stderr.log"

    with open(stderr_path, "wb") as stderr_file:
        process = subprocess.Popen(
            [
                str(cairn_bin),
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--data-dir",
                str(data_dir),
                *_metastore_args(),
                *extra_args,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
        )

    stdout_lines: list[str] = []
    ready: "queue.Queue[str | None]" = queue.Queue()
    pump = threading.Thread(target=_pump_stdout, args=(process.stdout, stdout_lines, ready), daemon=True)
    pump.start()

    uri = None
    port = None
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            line = ready.get(timeout=min(0.25, max(0.0, deadline - time.monotonic())))
        except queue.Empty:
            if process.poll() is not None and not pump.is_alive():
                break
            continue
        if line is None:  # stdout closed: the server exited (or closed stdout)
            break
        match = LISTENING_RE.search(line)
        if match:
            uri, port = match.group(1), int(match.group(2))
            break

    if uri is None:
        try:  # if stdout closed because the server exited, collect its exit code
            exit_code = process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            exit_code = None
        _stop(process)
        state = f"exited with code {process.returncode}" if exit_code is not None else "still running (killed)"
        pytest.fail(
            "cairn server did not print 'listening on http://127.0.0.1:<port>' within "
            f"{STARTUP_TIMEOUT_S:.0f}s; server {state}.\n"
            f"--- stdout ---\n" + "\n".join(stdout_lines[-50:]) + "\n"
            f"--- stderr ---\n{stderr_path.read_text(errors='replace')[-20000:]}",
            pytrace=False,
        )

    srv = CairnServer(
        uri=uri,
        port=port,
        data_dir=data_dir,
        warehouse=data_dir / "warehouse",
        process=process,
        stderr_path=stderr_path,
        stdout_lines=stdout_lines,
    )
    try:
        yield srv
    finally:
        _stop(process)
        pump.join(timeout=SHUTDOWN_GRACE_S)


# pyiceberg sends its requests without a timeout; a hung server would hang the
# suite.  Requests made through the catalog's session get this one instead.
CATALOG_HTTP_TIMEOUT_S = 60


class _DefaultTimeoutAdapter(requests.adapters.HTTPAdapter):
    def send(self, request, **kwargs):
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = CATALOG_HTTP_TIMEOUT_S
        return super().send(request, **kwargs)


def make_catalog(uri: str):
    """``RestCatalog("cairn", uri=uri)`` whose HTTP calls are time-bounded."""
    from pyiceberg.catalog.rest import RestCatalog

    catalog = RestCatalog("cairn", uri=uri)
    session = getattr(catalog, "_session", None)  # private in pyiceberg 0.12
    if isinstance(session, requests.Session):
        session.mount("http://", _DefaultTimeoutAdapter())
    return catalog


@pytest.fixture
def catalog(server: CairnServer):
    cat = make_catalog(server.uri)
    yield cat
    cat.close()


_name_counter = itertools.count()


@pytest.fixture
def unique_name(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """``unique_name("ns")`` -> e.g. ``ns_appended_batches_7_1a2b3c4d``.

    Names are valid identifiers (letters, digits, underscores), distinct per
    call, and carry a hint of the test that made them.
    """
    test_hint = re.sub(r"[^0-9a-zA-Z]+", "_", request.node.name.removeprefix("test_"))[:24].strip("_")

    def make(prefix: str = "t") -> str:
        return f"{prefix}_{test_hint}_{next(_name_counter)}_{uuid.uuid4().hex[:8]}"

    return make


@pytest.fixture
def namespace(catalog, unique_name) -> str:
    """A fresh, empty, single-level namespace for the test."""
    ns = unique_name("ns")
    catalog.create_namespace(ns)
    return ns
