#!/usr/bin/env bash
# cairn's two entry points. Both install what is missing, then build.
#
#   ./run.sh serve [flags]   start cairn on the embedded default (SQLite + local warehouse
#                            under ./cairn-data, 127.0.0.1:8181); flags: build/cairn serve --help
#   ./run.sh test            run every test against a throwaway PostgreSQL it starts: unit and
#                            contract tests (meson test), the pyiceberg integration suite and
#                            Apache Iceberg's REST Compatibility Kit, each on SQLite and on
#                            PostgreSQL; then the exactly-once harness (tests/harness) and a
#                            smoke run of the benchmark (tests/bench)
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages the build and the tests need.
PACKAGES=(g++ meson ninja-build pkg-config python3 python3-venv
          libsqlite3-dev libpqxx-dev libcpp-httplib-dev nlohmann-json3-dev libboost-dev
          doctest-dev libssl-dev zlib1g-dev)
# And for the tests: a PostgreSQL server, Java and Maven (Apache's compatibility kit).
TEST_PACKAGES=(postgresql)

log() { printf '==> %s\n' "$*" >&2; }

install_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  log "installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_test_tools() {
  install_packages "${TEST_PACKAGES[@]}"
  if ! command -v mvn >/dev/null || ! command -v java >/dev/null; then
    install_packages maven openjdk-17-jdk-headless
  fi
}

build() {
  if [ ! -f build/build.ninja ]; then
    meson setup build --buildtype=release >/dev/null
  fi
  log "building"
  ninja -C build >/dev/null
}

# A virtual environment with the integration suite's Python packages (PyPI).
python_env() {
  local req=tests/integration/requirements.txt stamp=.venv/.requirements
  if [ ! -x .venv/bin/python ]; then
    log "creating .venv"
    python3 -m venv .venv
  fi
  if ! cmp -s "$req" "$stamp"; then
    log "installing $(tr '\n' ' ' < "$req")"
    .venv/bin/pip install -q --disable-pip-version-check -r "$req"
    cp "$req" "$stamp"
  fi
}

case "${1:-}" in
  serve)
    shift
    install_packages "${PACKAGES[@]}"
    build
    exec build/cairn serve "$@"
    ;;
  test)
    install_packages "${PACKAGES[@]}"
    install_test_tools
    build
    work=$(mktemp -d "${TMPDIR:-/tmp}/cairn-test.XXXXXX")
    trap 'tests/support/s3.sh stop "$work/s3"; tests/support/postgres.sh stop "$work/pg"; rm -rf "$work"' EXIT
    log "starting a throwaway PostgreSQL"
    pg_url=$(tests/support/postgres.sh start "$work/pg")
    log "starting a throwaway S3-compatible server (moto, loopback)"
    s3_env=$(tests/support/s3.sh start "$work/s3")
    eval "$s3_env"
    export CAIRN_TEST_POSTGRES_URL=$pg_url CAIRN_BIN="$PWD/build/cairn"
    log "unit and contract tests"
    meson test -C build --print-errorlogs
    python_env
    for db in sqlite postgresql; do
      [ "$db" = sqlite ] && url="" || url=$pg_url
      log "integration tests: pyiceberg against cairn on $db"
      CAIRN_TEST_DB=$url .venv/bin/python -m pytest tests/integration -q -p no:cacheprovider
      log "Apache Iceberg REST Compatibility Kit against cairn on $db"
      CAIRN_DB=$url tests/compat/run_rck.sh
    done
    log "compose stack: files checked against the code, its sequence run without docker"
    .venv/bin/python -m pytest tests/compose -q -p no:cacheprovider
    log "exactly-once harness: replicas under kill -9, SIGSTOP and dropped sessions; mutants"
    PYTHON=.venv/bin/python tests/harness/run_harness.sh
    log "benchmark smoke run (one short run of every workload; fails if a request to cairn fails)"
    CAIRN_BENCH_LOADGEN="$PWD/build/tests/bench/cairn-bench-load" \
      tests/bench/run_bench.sh --quick --runs 1 --check --out "$work/bench"
    ;;
  *)
    echo "usage: ./run.sh serve [flags] | ./run.sh test" >&2
    exit 2
    ;;
esac
