#!/usr/bin/env bash
# cairn's two entry points. Both install what is missing, then build.
#
#   ./run.sh serve [flags]   start cairn on the embedded default (SQLite + local warehouse
#                            under ./cairn-data, 127.0.0.1:8181); flags: build/cairn serve --help
#   ./run.sh test            run every test: unit and contract tests (meson test), then the
#                            pyiceberg integration suite against a real cairn server
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages the build and the tests need.
PACKAGES=(g++ meson ninja-build pkg-config python3 python3-venv
          libsqlite3-dev libpqxx-dev libcpp-httplib-dev nlohmann-json3-dev libboost-dev
          doctest-dev libssl-dev zlib1g-dev)

log() { printf '==> %s\n' "$*" >&2; }

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  log "installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
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
    install_packages
    build
    exec build/cairn serve "$@"
    ;;
  test)
    install_packages
    build
    log "unit and contract tests"
    meson test -C build --print-errorlogs
    python_env
    log "integration tests (pyiceberg against cairn)"
    CAIRN_BIN="$PWD/build/cairn" .venv/bin/python -m pytest tests/integration -q -p no:cacheprovider
    ;;
  *)
    echo "usage: ./run.sh serve [flags] | ./run.sh test" >&2
    exit 2
    ;;
esac
