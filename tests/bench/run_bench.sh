#!/usr/bin/env bash
# cairn side by side with Apache Iceberg's reference REST server: one command.
#
#   tests/bench/run_bench.sh [--quick] [--runs N] [--no-postgres] [--out DIR] [--keep]
#
#   --quick        tables up to 10 000 snapshots, 3 short runs (a few minutes)
#   --runs N       runs per figure (default 3); every figure is their median
#   --no-postgres  skip cairn on PostgreSQL (default: run it when PostgreSQL is installed)
#   --out DIR      where results.md, results.json, latency_vs_snapshots.png and loadgen.log go
#                  (default: tests/bench/results, or tests/bench/results-quick with --quick)
#   --keep         keep the temporary directory (servers' data and logs) and say where it is
#   --check        exit 1 if any request to cairn failed (the smoke run of ./run.sh test)
#
# Builds cairn and the load generator (meson build dir: $CAIRN_BENCH_BUILD, default build),
# resolves the reference server with Maven (tests/bench/reference/pom.xml), makes a Python
# venv with matplotlib (tests/bench/.venv), starts a throwaway PostgreSQL
# (tests/support/postgres.sh), then runs tests/bench/bench.py: all servers on free 127.0.0.1
# ports, data under one temporary directory. Every server it starts is stopped when it ends.
#
# Environment: CAIRN_BIN / CAIRN_BENCH_LOADGEN use prebuilt binaries instead of building;
# BENCH_TIMEOUT bounds the whole run in seconds (default 1800 quick, 14400 full).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
cd "$REPO"

QUICK=0 RUNS="" POSTGRES=1 OUT="" KEEP=0 CHECK=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --runs) RUNS=${2:?--runs needs a number}; shift ;;
    --no-postgres) POSTGRES=0 ;;
    --out) OUT=${2:?--out needs a directory}; shift ;;
    --keep) KEEP=1 ;;
    --check) CHECK=1 ;;
    -h|--help) sed -n "2,/^set -euo/p" "$HERE/run_bench.sh" | sed "\$d; s/^# \{0,1\}//"; exit 0 ;;
    *) echo "run_bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$OUT" ] || { [ "$QUICK" = 1 ] && OUT=$HERE/results-quick || OUT=$HERE/results; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

log() { printf '==> %s\n' "$*" >&2; }

for tool in java mvn python3; do
  command -v "$tool" >/dev/null || {
    log "$tool is not installed (./run.sh test installs it)"; exit 2; }
done

# cairn and the load generator.
BUILD=${CAIRN_BENCH_BUILD:-build}
if [ -z "${CAIRN_BIN:-}" ] || [ -z "${CAIRN_BENCH_LOADGEN:-}" ]; then
  [ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" --buildtype=release >/dev/null
  log "building cairn and the load generator in $BUILD"
  ninja -C "$BUILD" cairn tests/bench/cairn-bench-load >/dev/null || {
    log "build failed (is 'subdir('bench')' in tests/meson.build?)"; exit 1; }
fi
CAIRN_BIN=${CAIRN_BIN:-$REPO/$BUILD/cairn}
LOADGEN=${CAIRN_BENCH_LOADGEN:-$REPO/$BUILD/tests/bench/cairn-bench-load}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench.XXXXXX")
PG_DIR=""
cleanup() {
  [ -n "$PG_DIR" ] && "$REPO/tests/support/postgres.sh" stop "$PG_DIR" || true
  if [ "$KEEP" = 1 ]; then log "kept $WORK"; else rm -rf -- "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The reference server's classpath, from Maven Central (cached in the local repository).
log "resolving Apache Iceberg's reference server (Maven)"
mvn -q -B -Dstyle.color=never -f "$HERE/reference/pom.xml" dependency:build-classpath \
  -Dmdep.outputFile="$WORK/classpath.txt" >"$WORK/maven.log" 2>&1 || {
  tail -n 30 "$WORK/maven.log" >&2; exit 1; }

# matplotlib for the plot (PyPI), in tests/bench/.venv.
PY=python3
if [ ! -x "$HERE/.venv/bin/python" ]; then
  log "creating tests/bench/.venv"
  python3 -m venv "$HERE/.venv"
fi
if ! cmp -s "$HERE/requirements.txt" "$HERE/.venv/.requirements"; then
  if "$HERE/.venv/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt"; then
    cp "$HERE/requirements.txt" "$HERE/.venv/.requirements"
  else
    log "could not install matplotlib: no plot this time"
  fi
fi
PY=$HERE/.venv/bin/python

PG_ARGS=()
if [ "$POSTGRES" = 1 ]; then
  if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    PG_DIR=$WORK/pg
    log "starting a throwaway PostgreSQL"
    PG_ARGS=(--postgres "$("$REPO/tests/support/postgres.sh" start "$PG_DIR")")
  else
    log "PostgreSQL is not installed: skipping cairn on PostgreSQL"
  fi
fi

ARGS=()
[ "$QUICK" = 1 ] && ARGS+=(--quick)
[ -n "$RUNS" ] && ARGS+=(--runs "$RUNS")
[ "$CHECK" = 1 ] && ARGS+=(--check)
COMMAND="tests/bench/run_bench.sh"
[ "$QUICK" = 1 ] && COMMAND+=" --quick"
[ -n "$RUNS" ] && COMMAND+=" --runs $RUNS"
[ "$POSTGRES" = 0 ] && COMMAND+=" --no-postgres"
[ "$QUICK" = 1 ] && LIMIT=${BENCH_TIMEOUT:-1800} || LIMIT=${BENCH_TIMEOUT:-14400}

log "running the benchmark (bounded to $LIMIT s); progress below, results in $OUT"
mkdir -p "$WORK/run"
timeout --signal=TERM --kill-after=60 "$LIMIT" "$PY" "$HERE/bench.py" \
  --loadgen "$LOADGEN" --cairn "$CAIRN_BIN" --ref-classpath "$WORK/classpath.txt" \
  --workdir "$WORK/run" --out "$OUT" --command "$COMMAND" "${ARGS[@]}" "${PG_ARGS[@]}"
