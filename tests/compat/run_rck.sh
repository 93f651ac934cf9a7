#!/usr/bin/env bash
# Runs Apache Iceberg's REST Compatibility Kit (RCK) against a fresh cairn server.
#
#   tests/compat/run_rck.sh [extra mvn args, e.g. -Dtest=RESTCompatibilityKitCatalogTests]
#
# Starts `cairn serve` on a free 127.0.0.1 port with an empty temporary data dir, runs the kit
# through Maven (tests/compat/pom.xml; dependencies are cached in the default local repository),
# stops cairn, removes the temporary files and prints a summary per suite, ending in the line
# `rck: N passed, N failed, N skipped`. Exits non-zero if any test failed or errored, or if
# the kit did not run.
#
# Environment:
#   CAIRN_BIN        cairn binary (default: <repo>/build/cairn)
#   CAIRN_DB         metastore URL (default: SQLite in the temporary data dir)
#   RCK_TIMEOUT      bound on the whole Maven run, seconds (default 3600)
#   RCK_KEEP         1 = keep the temporary dir (server log, data) and say where it is
#   RCK_VERBOSE      1 = show Maven's output as it runs (it is always kept in
#                    tests/compat/target/rck-maven.log; full traces in target/surefire-reports)
#
# Where the kit puts tables and views, and so what cairn is told to allow:
#   - CatalogTests places its tables at the fixed locations file:/tmp/<namespace>/<table>, i.e.
#     file:/tmp/ns/tbl and file:/tmp/newdb/newtable (a constant in the kit, not configurable);
#     the test JVM writes data files there itself. Those two paths are allowed, nothing else
#     under /tmp. They are removed afterwards when this run created them.
#   - ViewCatalogTests places views under its JUnit @TempDir; the test JVM's java.io.tmpdir is
#     pointed at a dir inside this run's temporary dir, and only that dir is allowed.
# Two runs at the same time would share the two fixed table locations: run one at a time.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CAIRN_BIN=${CAIRN_BIN:-$REPO/build/cairn}
RCK_TIMEOUT=${RCK_TIMEOUT:-3600}
REPORTS=$HERE/target/surefire-reports

log() { printf 'rck: %s\n' "$*" >&2; }

if [ ! -x "$CAIRN_BIN" ]; then
  log "no cairn binary at $CAIRN_BIN (build it: ninja -C build, or set CAIRN_BIN)"
  exit 2
fi
for tool in mvn java python3; do
  command -v "$tool" >/dev/null || { log "$tool is not installed"; exit 2; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cairn-rck.XXXXXX")
DATA=$WORK/data
JUNIT_TMP=$WORK/junit-tmp
mkdir -p "$DATA" "$JUNIT_TMP"

# The kit's fixed table locations (CatalogTests: "file:/tmp" + "/" + namespace + "/" + name).
KIT_TABLE_DIRS=(/tmp/ns/tbl /tmp/newdb/newtable)
CREATED_DIRS=()  # removed afterwards, deepest first
for d in "${KIT_TABLE_DIRS[@]}"; do
  if [ -e "$d" ]; then
    log "note: $d exists already (left by an earlier run?); it is used as it is and kept"
  else
    CREATED_DIRS+=("$d")
    [ -e "$(dirname "$d")" ] || CREATED_DIRS+=("$(dirname "$d")")
  fi
done

CAIRN_PID=""
cleanup() {
  if [ -n "$CAIRN_PID" ] && kill -0 "$CAIRN_PID" 2>/dev/null; then
    kill -TERM "$CAIRN_PID" 2>/dev/null
    for _ in $(seq 1 50); do
      kill -0 "$CAIRN_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$CAIRN_PID" 2>/dev/null && kill -KILL "$CAIRN_PID" 2>/dev/null
    wait "$CAIRN_PID" 2>/dev/null
  fi
  CAIRN_PID=""
  for d in "${CREATED_DIRS[@]}"; do rm -rf -- "$d"; done
  CREATED_DIRS=()
  if [ "${RCK_KEEP:-0}" = 1 ]; then
    log "kept $WORK (cairn.log, data/)"
  else
    rm -rf -- "$WORK"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Start cairn on a free loopback port and wait (bounded) for its "listening" line.
ALLOW=()
for d in "${KIT_TABLE_DIRS[@]}" "$JUNIT_TMP"; do ALLOW+=(--allow-location "file:$d"); done
# A PostgreSQL metastore (CAIRN_DB) is shared between runs: a fresh catalog name keeps this
# run's catalog empty, as the kit requires.
DB=()
if [ -n "${CAIRN_DB:-}" ]; then
  DB=(--db "$CAIRN_DB" --catalog-name "rck_$(date +%s)_$$")
fi
"$CAIRN_BIN" serve --host 127.0.0.1 --port 0 --data-dir "$DATA" "${ALLOW[@]}" "${DB[@]}" \
  >"$WORK/cairn.log" 2>&1 &
CAIRN_PID=$!
PORT=""
for _ in $(seq 1 200); do
  PORT=$(sed -n 's#^cairn listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*#\1#p' \
           "$WORK/cairn.log" | head -n 1)
  [ -n "$PORT" ] && break
  kill -0 "$CAIRN_PID" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$PORT" ]; then
  log "cairn did not start; its output:"
  cat "$WORK/cairn.log" >&2
  exit 2
fi
URI="http://127.0.0.1:$PORT/"
log "cairn $CAIRN_BIN listening at $URI"

rm -rf "$REPORTS"
mkdir -p "$HERE/target"
MVN_LOG=$HERE/target/rck-maven.log
START=$(date +%s)
if [ "${RCK_VERBOSE:-0}" = 1 ]; then
  timeout "$RCK_TIMEOUT" mvn -q -B -Dstyle.color=never -f "$HERE/pom.xml" test \
    -Duri="$URI" -Drck.tmpdir="$JUNIT_TMP" "$@" 2>&1 | tee "$MVN_LOG"
  MVN_RC=${PIPESTATUS[0]}
else
  timeout "$RCK_TIMEOUT" mvn -q -B -Dstyle.color=never -f "$HERE/pom.xml" test \
    -Duri="$URI" -Drck.tmpdir="$JUNIT_TMP" "$@" >"$MVN_LOG" 2>&1
  MVN_RC=$?
fi
log "maven finished in $(( $(date +%s) - START )) s (exit $MVN_RC); its output: tests/compat/target/rck-maven.log, reports: tests/compat/target/surefire-reports/"
if [ "$MVN_RC" -ne 0 ] && ! ls "$REPORTS"/TEST-*.xml >/dev/null 2>&1; then
  log "no test reports; the end of maven's output:"
  tail -n 40 "$MVN_LOG" >&2
fi

if ! kill -0 "$CAIRN_PID" 2>/dev/null; then
  log "cairn exited during the run; its output:"
  tail -n 50 "$WORK/cairn.log" >&2
fi
cleanup
trap - EXIT

# Summary from the surefire XML reports.
python3 - "$REPORTS" "$MVN_RC" <<'EOF'
import glob, os, sys
import xml.etree.ElementTree as ET

reports, mvn_rc = sys.argv[1], int(sys.argv[2])
suites = ["RESTCompatibilityKitCatalogTests", "RESTCompatibilityKitViewCatalogTests"]
totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
found = {}
for path in sorted(glob.glob(os.path.join(reports, "TEST-*.xml"))):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        print(f"  unreadable report {os.path.basename(path)}: {e}")
        totals["errors"] += 1
        continue
    for suite in [root] if root.tag == "testsuite" else root.iter("testsuite"):
        name = suite.get("name", "").rsplit(".", 1)[-1]
        counts = {k: int(suite.get(k, "0")) for k in totals}
        failed = []
        for case in suite.iter("testcase"):
            for kind in ("failure", "error"):
                el = case.find(kind)
                if el is not None:
                    msg = " | ".join(l.strip() for l in (el.get("message") or "").splitlines()
                                     if l.strip())
                    msg = msg or el.get("type") or ""
                    failed.append((case.get("name"), kind, msg[:300]))
        found[name] = (counts, failed)

print()
print("REST Compatibility Kit summary")
for name in sorted(found, key=lambda n: (n not in suites, n)):
    c, failed = found[name]
    passed = c["tests"] - c["failures"] - c["errors"] - c["skipped"]
    print(f"  {name}: {c['tests']} run, {passed} passed, {c['failures']} failed, "
          f"{c['errors']} errors, {c['skipped']} skipped")
    for test, kind, msg in sorted(failed):
        print(f"    {kind}: {test}: {msg}")
    for k in totals:
        totals[k] += c[k]
for name in suites:
    if name not in found:
        print(f"  {name}: no report (not selected, or it did not run)")

passed = totals["tests"] - totals["failures"] - totals["errors"] - totals["skipped"]
bad = totals["failures"] + totals["errors"]
print(f"rck: {passed} passed, {bad} failed, {totals['skipped']} skipped")
# A suite left out on purpose (-Dtest=...) is reported above but is no failure by itself.
ok = bad == 0 and bool(found) and mvn_rc == 0
sys.exit(0 if ok else 1)
EOF
