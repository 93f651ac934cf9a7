"""compose/: the docker compose stack, checked against the code, then run without docker.

Docker does not run here, so the first tests read compose/docker-compose.yml and
compose/Dockerfile and check that what they say agrees with cairn itself: every setting is a
flag or variable `cairn serve --help` documents, the ports and the healthcheck path agree, the
services reach each other by the names and keys the others use, the image builds on Debian 12
with the packages the build needs and ships the libraries the binary links.

The last test runs the stack's sequence without docker: a fresh PostgreSQL database (on the
server tests/support/postgres.sh started, CAIRN_TEST_POSTGRES_URL), the stack's bucket on the
S3-compatible test server (tests/support/s3.sh, CAIRN_TEST_S3_*), cairn started exactly as the
image starts it (`cairn serve` and the compose file's environment, with host names, keys and
the port replaced by the test's), its healthcheck, then compose/client.py, twice.

Run with:  python -m pytest tests/compose   (./run.sh test does)
"""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

import pyarrow.fs as pafs
import pytest
import requests
import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE_DIR = REPO / "compose"
CAIRN_BIN = Path(os.environ.get("CAIRN_BIN") or REPO / "build" / "cairn")
HEALTH_PATHS = {"/ready", "/health"}
# Packages run.sh installs that only the tests need.
TEST_ONLY_PACKAGES = {"doctest-dev", "python3-venv"}
# Libraries every Debian 12 image has.
BASE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6"}


# --------------------------------------------------------------------------
# reading the files
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((COMPOSE_DIR / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def cairn_env(compose) -> dict[str, str]:
    return {k: str(v) for k, v in compose["services"]["cairn"]["environment"].items()}


@pytest.fixture(scope="module")
def help_text() -> str:
    if not CAIRN_BIN.exists():
        pytest.fail(f"cairn binary not found at {CAIRN_BIN} (build it, or set CAIRN_BIN)")
    out = subprocess.run([str(CAIRN_BIN), "serve", "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


class Dockerfile:
    """The stages of compose/Dockerfile: FROM, apt packages, ENV, EXPOSE, HEALTHCHECK..."""

    def __init__(self, text: str):
        lines, pending = [], ""
        for raw in text.splitlines():
            line = raw.strip()
            if line.startswith("#") or (not line and not pending):
                continue
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            lines.append((pending + line).strip())
            pending = ""
        self.stages: list[dict] = []
        for line in lines:
            word, _, rest = line.partition(" ")
            word = word.upper()
            if word == "FROM":
                parts = rest.split()
                self.stages.append({"from": parts[0], "name": parts[2] if len(parts) > 2 else "",
                                    "packages": set(), "env": {}, "lines": []})
                continue
            stage = self.stages[-1]
            stage["lines"].append((word, rest))
            if word == "RUN" and "apt-get install" in rest:
                install = rest.split("apt-get install", 1)[1].split("&&", 1)[0]
                stage["packages"] |= {w for w in install.split() if not w.startswith("-")}
            if word == "ENV":
                stage["env"].update(dict(kv.split("=", 1) for kv in shlex.split(rest)))

    def last(self, word: str) -> str:
        found = [rest for w, rest in self.stages[-1]["lines"] if w == word]
        assert found, f"no {word} in the final stage"
        return found[-1]


@pytest.fixture(scope="module")
def dockerfile() -> Dockerfile:
    return Dockerfile((COMPOSE_DIR / "Dockerfile").read_text())


def healthcheck_url(test) -> str:
    text = " ".join(test) if isinstance(test, list) else test
    match = re.search(r"https?://[^\s\"']+", text)
    assert match, f"no URL in healthcheck {test!r}"
    return match.group(0)


def run_sh_packages() -> set[str]:
    text = (REPO / "run.sh").read_text()
    match = re.search(r"^PACKAGES=\(([^)]*)\)", text, re.M)
    assert match, "PACKAGES=(...) not found in run.sh"
    return set(match.group(1).split())


# --------------------------------------------------------------------------
# consistency with the code
# --------------------------------------------------------------------------


def test_every_setting_of_cairn_is_a_variable_its_help_documents(cairn_env, dockerfile, help_text):
    documented = set(re.findall(r"env (CAIRN_[A-Z0-9_]+)", help_text))
    aws_fallbacks = set(re.findall(r"\b(AWS_[A-Z0-9_]+)", help_text))
    settings = set(cairn_env) | set(dockerfile.stages[-1]["env"])
    unknown = {k for k in settings if k not in documented and k not in aws_fallbacks}
    assert not unknown, f"not documented by cairn serve --help: {sorted(unknown)}"
    assert {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_ENDPOINT_URL"} <= aws_fallbacks


def test_the_port_is_the_same_everywhere(compose, cairn_env, dockerfile):
    port = cairn_env["CAIRN_PORT"]
    assert dockerfile.stages[-1]["env"]["CAIRN_PORT"] == port
    assert dockerfile.last("EXPOSE").split() == [port]
    mapped = [str(p).split(":")[-1] for p in compose["services"]["cairn"]["ports"]]
    assert mapped == [port]
    assert urlparse(healthcheck_url(compose["services"]["cairn"]["healthcheck"]["test"])).port == int(port)
    assert urlparse(healthcheck_url(dockerfile.last("HEALTHCHECK"))).port == int(port)
    client_uri = urlparse(compose["services"]["client"]["environment"]["CAIRN_URI"])
    assert (client_uri.hostname, client_uri.port) == ("cairn", int(port))
    # In a container cairn must listen beyond loopback.
    assert cairn_env["CAIRN_HOST"] == dockerfile.stages[-1]["env"]["CAIRN_HOST"] == "0.0.0.0"


def test_healthchecks_ask_a_path_cairn_serves_for_readiness(compose, dockerfile):
    for test in (compose["services"]["cairn"]["healthcheck"]["test"], dockerfile.last("HEALTHCHECK")):
        assert urlparse(healthcheck_url(test)).path in HEALTH_PATHS, test
    assert "curl" in dockerfile.stages[-1]["packages"], "the healthcheck runs curl"


def test_cairn_reaches_postgres_by_its_service_name_and_credentials(compose, cairn_env):
    db = urlparse(cairn_env["CAIRN_DB"])
    pg = compose["services"]["postgres"]["environment"]
    assert db.scheme == "postgresql"
    assert (db.hostname, db.port) == ("postgres", 5432)
    assert (db.username, db.password, db.path.lstrip("/")) == (
        pg["POSTGRES_USER"], pg["POSTGRES_PASSWORD"], pg["POSTGRES_DB"])
    assert compose["services"]["cairn"]["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_cairn_reaches_the_store_and_its_bucket_with_the_stores_keys(compose, cairn_env):
    s3 = compose["services"]["s3"]
    command = s3["command"]
    endpoint = urlparse(cairn_env["CAIRN_S3_ENDPOINT"])
    s3_port = re.search(r"-s3\.port=(\d+)", command).group(1)
    assert (endpoint.hostname, endpoint.port) == ("s3", int(s3_port))
    assert [str(p).split(":")[-1] for p in s3["ports"]] == [s3_port]
    assert urlparse(healthcheck_url(s3["healthcheck"]["test"])).port == int(s3_port)
    bucket = urlparse(cairn_env["CAIRN_WAREHOUSE"]).hostname
    assert cairn_env["CAIRN_WAREHOUSE"].startswith("s3://")
    assert bucket in re.search(r"-bucket=(\S+)", command).group(1).split(",")
    assert cairn_env["CAIRN_S3_PATH_STYLE"] == "true", "a bare service name needs path-style addressing"

    config_path = re.search(r"-s3\.config=(\S+)", command).group(1)
    mounts = {v.split(":")[1]: v.split(":")[0] for v in s3["volumes"] if v.startswith("./")}
    identities = json.loads((COMPOSE_DIR / mounts[config_path]).read_text())["identities"]
    keys = {(c["accessKey"], c["secretKey"]) for i in identities for c in i["credentials"]}
    assert (cairn_env["AWS_ACCESS_KEY_ID"], cairn_env["AWS_SECRET_ACCESS_KEY"]) in keys
    assert compose["services"]["cairn"]["depends_on"]["s3"]["condition"] == "service_healthy"


def test_the_client_waits_for_a_healthy_cairn_and_runs_the_client_script(compose):
    client = compose["services"]["client"]
    assert client["depends_on"]["cairn"]["condition"] == "service_healthy"
    mounts = {v.split(":")[1]: v.split(":")[0] for v in client["volumes"]}
    script = re.search(r"python (\S+\.py)", client["command"]).group(1)
    assert (COMPOSE_DIR / mounts[script]).is_file()
    pinned = re.search(r"pyiceberg\[pyarrow\]==[\w.]+", client["command"]).group(0)
    requirements = (REPO / "tests" / "integration" / "requirements.txt").read_text()
    assert pinned in requirements, "the client uses the pyiceberg the test suite uses"


def test_the_image_builds_on_debian_12_in_two_stages_from_this_repository(compose, dockerfile):
    build = compose["services"]["cairn"]["build"]
    assert (COMPOSE_DIR / build["context"]).resolve() == REPO
    assert (REPO / build["dockerfile"]).resolve() == COMPOSE_DIR / "Dockerfile"
    first, last = dockerfile.stages[0], dockerfile.stages[-1]
    assert len(dockerfile.stages) == 2
    assert first["from"] == "debian:12" and first["name"]
    assert last["from"] in ("debian:12", "debian:12-slim")
    copied = [rest for w, rest in last["lines"] if w == "COPY"]
    assert any(rest.startswith(f"--from={first['name']} ") for rest in copied), copied
    assert json.loads(dockerfile.last("ENTRYPOINT")) == ["cairn", "serve"]
    missing = run_sh_packages() - TEST_ONLY_PACKAGES - first["packages"]
    assert not missing, f"the build stage lacks packages run.sh builds with: {sorted(missing)}"


def test_the_runtime_image_has_every_library_cairn_links(dockerfile):
    needed = re.findall(r"NEEDED\s+(\S+)", subprocess.run(
        ["objdump", "-p", str(CAIRN_BIN)], capture_output=True, text=True, check=True).stdout)
    packages = set()
    for lib in needed:
        path = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
        match = re.search(rf"^\s*{re.escape(lib)} .*=> (\S+)$", path, re.M)
        assert match, f"{lib} not known to ldconfig"
        real = os.path.realpath(match.group(1))
        # Debian 12 merged /lib into /usr/lib; dpkg knows a file by the path its package has.
        for candidate in (real, real.replace("/usr/lib/", "/lib/", 1), match.group(1)):
            owner = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
            if owner.returncode == 0:
                packages.add(owner.stdout.split(":")[0])
                break
        else:
            pytest.fail(f"no Debian package owns {real}")
    missing = packages - BASE_PACKAGES - dockerfile.stages[-1]["packages"]
    assert not missing, f"the runtime stage lacks {sorted(missing)} (libraries {needed})"


# --------------------------------------------------------------------------
# the same sequence, without docker
# --------------------------------------------------------------------------


def require_env(*names: str) -> list[str]:
    missing = [n for n in names if not os.environ.get(n)]
    if missing:
        pytest.fail(f"{', '.join(missing)} not set: run ./run.sh test", pytrace=False)
    return [os.environ[n] for n in names]


def fresh_database(server_url: str) -> str:
    name = f"compose_{uuid.uuid4().hex[:12]}"
    subprocess.run(["psql", server_url, "-q", "-c", f"CREATE DATABASE {name}"], check=True,
                   capture_output=True, timeout=60)
    return server_url.rsplit("/", 1)[0] + "/" + name


def test_the_stack_runs_without_docker(compose, cairn_env, tmp_path):
    (pg_url,) = require_env("CAIRN_TEST_POSTGRES_URL")
    endpoint, region, key, secret = require_env("CAIRN_TEST_S3_ENDPOINT", "CAIRN_TEST_S3_REGION",
                                                "CAIRN_TEST_S3_ACCESS_KEY_ID",
                                                "CAIRN_TEST_S3_SECRET_ACCESS_KEY")
    ep = urlparse(endpoint)
    store = pafs.S3FileSystem(endpoint_override=ep.netloc, scheme=ep.scheme, region=region,
                              access_key=key, secret_key=secret, force_virtual_addressing=False,
                              allow_bucket_creation=True)

    # 1. postgres: an empty database. 2. s3: the stack's bucket.
    bucket = urlparse(cairn_env["CAIRN_WAREHOUSE"]).hostname
    if store.get_file_info(bucket).type == pafs.FileType.NotFound:
        store.create_dir(bucket)

    # 3. cairn: `cairn serve` with the compose environment, our addresses and keys swapped in.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIRN_", "AWS_"))}
    env.update(cairn_env)
    env.update({
        "CAIRN_HOST": "127.0.0.1", "CAIRN_PORT": "0", "CAIRN_DATA_DIR": str(tmp_path / "data"),
        "CAIRN_DB": fresh_database(pg_url), "CAIRN_S3_ENDPOINT": endpoint,
        "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret,
    })
    assert set(env) >= set(cairn_env)
    stderr = open(tmp_path / "cairn.stderr", "wb")
    proc = subprocess.Popen([str(CAIRN_BIN), "serve"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=stderr)
    lines: "queue.Queue[str | None]" = queue.Queue()
    seen: list[str] = []

    def pump():
        for raw in iter(proc.stdout.readline, b""):
            lines.put(raw.decode(errors="replace").rstrip("\n"))
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    try:
        uri = None
        deadline = time.monotonic() + 30
        while uri is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                continue
            if line is None:
                break
            seen.append(line)
            match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            uri = match.group(1) if match else None
        assert uri, f"cairn did not start:\n{seen}\n{(tmp_path / 'cairn.stderr').read_text()}"
        assert any("conditional writes (If-None-Match: *): honoured" in s for s in seen), seen

        # 4. the healthcheck compose waits for.
        path = urlparse(healthcheck_url(compose["services"]["cairn"]["healthcheck"]["test"])).path
        assert requests.get(uri + path, timeout=10).status_code == 200

        prefix = cairn_env["CAIRN_WAREHOUSE"][len("s3://"):] + "/demo/events"

        def stored() -> set[str]:
            infos = store.get_file_info(pafs.FileSelector(prefix, recursive=True, allow_not_found=True))
            return {i.path for i in infos if i.type == pafs.FileType.File}

        before = stored()  # left by an earlier run against the same store, if any

        # 5. the client, with the compose environment (cairn's address swapped in), twice.
        client_env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIRN_", "AWS_"))}
        client_env.update({k: str(v) for k, v in compose["services"]["client"]["environment"].items()})
        client_env["CAIRN_URI"] = uri
        for run in (1, 2):
            out = subprocess.run([sys.executable, str(COMPOSE_DIR / "client.py")], env=client_env,
                                 capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, f"client run {run}:\n{out.stdout}\n{out.stderr[-5000:]}"
            assert f"read back {3 * run} rows in all, 3 from this run" in out.stdout, out.stdout

        # The data files went straight to the store, under the warehouse.
        names = sorted(stored() - before)
        assert sum(n.endswith(".parquet") for n in names) == 2, names
        assert sum(n.endswith(".metadata.json") for n in names) == 3, names
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        stderr.close()
