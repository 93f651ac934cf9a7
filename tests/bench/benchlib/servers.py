"""The servers under test, each started on a free 127.0.0.1 port with its own data directory.

Every server is a child process of the benchmark and is stopped by it (TERM, then KILL after
a bound), also when the benchmark fails or is interrupted.
"""
import ctypes
import os
import signal
import socket
import subprocess
import time
import urllib.request


def free_port():
    """A port that was free on 127.0.0.1 a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """preexec_fn: the child gets SIGTERM when the benchmark dies, however it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def rss_kib(pid):
    """Resident memory of a process in KiB (VmRSS), or None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class Server:
    """A catalog server. Subclasses give name, label, command(port, dir) and env(port, dir)."""

    name = "server"
    label = "server"

    def __init__(self, workdir):
        self.dir = os.path.join(workdir, self.name)
        os.makedirs(self.dir, exist_ok=True)
        self.proc = None
        self.port = None

    def command(self, port, data_dir):
        raise NotImplementedError

    def env(self, port, data_dir):
        return dict(os.environ)

    def start(self, timeout_s=120):
        """Starts the server and waits (bounded) until /v1/config answers 200."""
        self.port = free_port()
        data = os.path.join(self.dir, "data")
        os.makedirs(data, exist_ok=True)
        log = open(os.path.join(self.dir, "server.log"), "ab")
        self.proc = subprocess.Popen(self.command(self.port, data), env=self.env(self.port, data),
                                     stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.label} exited at start; see {self.dir}/server.log")
            if self.answers(timeout=1):
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.label} did not answer /v1/config within {timeout_s} s")

    def answers(self, timeout=1.0):
        try:
            url = f"http://127.0.0.1:{self.port}/v1/config"
            with urllib.request.urlopen(url, timeout=timeout) as r:
                return r.status == 200
        except OSError:
            return False

    def wait_responsive(self, timeout_s=60):
        """After an overload: waits (bounded) until a new connection is answered again."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.answers(timeout=2):
                return True
            time.sleep(0.2)
        return False

    def rss_kib(self):
        return rss_kib(self.proc.pid) if self.proc else None

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)


class Cairn(Server):
    """cairn serve, on its embedded SQLite metastore or on PostgreSQL (db_url)."""

    def __init__(self, workdir, binary, db_url=None, threads=16):
        self.binary = binary
        self.db_url = db_url
        self.threads = threads
        self.name = "cairn-pg" if db_url else "cairn"
        self.label = "cairn (PostgreSQL)" if db_url else "cairn"
        self.catalog = f"bench_{os.getpid()}_{int(time.time())}"
        self.startups = 0
        super().__init__(workdir)

    def command(self, port, data_dir):
        cmd = [self.binary, "serve", "--host", "127.0.0.1", "--port", str(port),
               "--data-dir", data_dir, "--threads", str(self.threads)]
        if self.db_url:
            # A fresh catalog name per start keeps each start's catalog empty on a shared db.
            self.startups += 1
            cmd += ["--db", self.db_url, "--catalog-name", f"{self.catalog}_{self.startups}"]
        return cmd


class Reference(Server):
    """Apache Iceberg's RESTCatalogServer (iceberg-open-api test-fixtures), configured by its
    CATALOG_* environment: a JdbcCatalog on a SQLite file (WAL, synchronous=FULL, busy timeout,
    like cairn's), a local warehouse, a JDBC pool as large as cairn's connection pool."""

    name = "reference"
    label = "reference"

    def __init__(self, workdir, classpath, pool=16, busy_timeout_ms=5000, java="java"):
        self.classpath = classpath
        self.pool = pool
        self.busy_timeout_ms = busy_timeout_ms
        self.java = java
        super().__init__(workdir)

    def command(self, port, data_dir):
        return [self.java, "-cp", self.classpath, "org.apache.iceberg.rest.RESTCatalogServer"]

    def env(self, port, data_dir):
        env = dict(os.environ)
        db = os.path.join(data_dir, "catalog.db")
        env.update({
            "CATALOG_URI": f"jdbc:sqlite:{db}?journal_mode=WAL&synchronous=FULL"
                           f"&busy_timeout={self.busy_timeout_ms}",
            "CATALOG_WAREHOUSE": os.path.join(data_dir, "warehouse"),
            "CATALOG_REST_PORT": str(port),
            "CATALOG_CLIENTS": str(self.pool),
        })
        return env
