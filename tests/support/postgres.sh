#!/usr/bin/env bash
# A throwaway PostgreSQL for tests, from Debian's packages, on loopback only.
#
#   tests/support/postgres.sh start DIR   initdb in DIR, start on a free 127.0.0.1 port, print
#                                         the connection URL on stdout
#   tests/support/postgres.sh stop DIR    stop it (the caller removes DIR)
#
# As root (CI), the server runs as the 'postgres' system user: initdb refuses to run as root.
set -euo pipefail

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bindir/initdb" ] || { echo "postgres.sh: PostgreSQL server binaries not found" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

case "${1:-}" in
  start)
    dir=${2:?usage: postgres.sh start DIR}
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then
      chown postgres "$dir"
      chmod o+x "$(dirname "$dir")"  # let the postgres user reach DIR
    fi
    as_owner "$bindir/initdb" -D "$dir/data" -U cairn -A trust --no-instructions -E UTF8 \
      >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    port=$(free_port)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300" start \
      >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://cairn@127.0.0.1:$port/postgres"
    ;;
  stop)
    dir=${2:?usage: postgres.sh stop DIR}
    [ -d "$dir/data" ] && as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    ;;
  *)
    echo "usage: tests/support/postgres.sh start|stop DIR" >&2
    exit 2
    ;;
esac
