#!/usr/bin/env bash
# The exactly-once harness, bounded for CI (a few minutes): 3 replicas on PostgreSQL, 3 on one
# SQLite file, PostgreSQL again with clients that re-send unknown outcomes under an
# Idempotency-Key, then both deliberate mutants, which the checker must flag.
#
#   tests/harness/run_harness.sh
#
# Environment: CAIRN_BIN (default build/cairn), PYTHON (default .venv/bin/python, else
# python3), HARNESS_DURATION (seconds per real run, default 50), HARNESS_MUTANT_DURATION
# (default 20; also the retry run), HARNESS_KEEP=1 keeps the work dirs for inspection.
# Runs the checker's self-test first (every violation class must be detected on hand-made
# histories). Prints each report and ends with one line `harness: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."

cairn=${CAIRN_BIN:-build/cairn}
python=${PYTHON:-}
if [ -z "$python" ]; then
  if [ -x .venv/bin/python ]; then python=.venv/bin/python; else python=python3; fi
fi
duration=${HARNESS_DURATION:-50}
mutant_duration=${HARNESS_MUTANT_DURATION:-20}
[ -x "$cairn" ] || { echo "run_harness.sh: no cairn binary at $cairn (set CAIRN_BIN)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cairn-harness.XXXXXX")
child=""
cleanup() {
  # A harness killed half-way leaves its replicas: stop the ones it recorded.
  if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  for pids in "$work"/*/pids; do
    [ -f "$pids" ] || continue
    while read -r pid; do
      [ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    done <"$pids"
  done
  tests/support/postgres.sh stop "$work/pg"
  if [ "${HARNESS_KEEP:-}" = 1 ]; then
    echo "run_harness.sh: kept $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pg_url=$(tests/support/postgres.sh start "$work/pg") || { echo "harness: 0 passed, 1 failed"; exit 1; }

passed=0
failed=0
run() {
  local name=$1
  shift
  echo "--- $name"
  "$python" tests/harness/exactly_once.py --cairn "$cairn" --workdir "$work/$name" "$@" &
  child=$!
  if wait "$child"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "--- $name: FAILED"
  fi
  child=""
}

start=$(date +%s)
echo "--- checker-selftest"
if "$python" tests/harness/test_checker.py; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "--- checker-selftest: FAILED"
fi
run postgres --backend postgres --pg-url "$pg_url" --duration "$duration"
run sqlite --backend sqlite --duration "$duration"
run postgres-retry --backend postgres --pg-url "$pg_url" --duration "$mutant_duration" \
  --retry-unknown 3
run mutant-cas --backend postgres --pg-url "$pg_url" --duration "$mutant_duration" \
  --mutant cas-without-predicate
run mutant-false-conflict --backend postgres --pg-url "$pg_url" --duration "$mutant_duration" \
  --mutant false-conflict
echo "--- total $(( $(date +%s) - start )) s"
echo "harness: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
